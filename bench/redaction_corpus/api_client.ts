// Typed client for the shop API, used by the storefront and the admin console.

import { z } from "zod";

export interface Credentials {
  email: string;
  password: string;
}

export interface ApiKeySummary {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  token?: string | null;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}

const OrderSchema = z.object({
  id: z.string().uuid(),
  status: z.enum(["pending_payment", "paid", "shipped", "cancelled"]),
  total: z.string(),
  createdAt: z.string().datetime(),
});
export type Order = z.infer<typeof OrderSchema>;

const DEFAULT_TIMEOUT_MS = 10_000;
const API_KEY_HEADER = "X-Api-Key";
const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const BUILD_SHA = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3";
export const EMPTY_BODY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly requestId?: string,
  ) {
    super(`${status}: ${detail}`);
  }
}

export class ShopClient {
  private readonly baseUrl: string;
  private readonly apiKey?: string;
  private token: string | null;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/$/, "");
    this.apiKey = options.apiKey;
    this.token = options.token ?? null;
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  static fromEnv(): ShopClient {
    const apiKey = import.meta.env.VITE_SHOP_API_KEY;
    const baseUrl = import.meta.env.VITE_SHOP_API_URL ?? "https://api.shop.example.com";
    return new ShopClient({ baseUrl, apiKey });
  }

  private headers(extra: Record<string, string> = {}): Headers {
    const headers = new Headers({ Accept: "application/json", ...extra });
    if (this.apiKey) headers.set(API_KEY_HEADER, this.apiKey);
    if (this.token) headers.set("Authorization", `Bearer ${this.token}`);
    return headers;
  }

  private async request<T>(path: string, init: RequestInit, schema?: z.ZodType<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const response = await this.fetchImpl(`${this.baseUrl}${path}`, {
        ...init,
        credentials: "include",
        signal: controller.signal,
      });
      const requestId = response.headers.get("X-Request-Id") ?? undefined;
      if (!response.ok) {
        const body = await response.json().catch(() => ({ detail: response.statusText }));
        throw new ApiError(response.status, body.detail ?? "Request failed", requestId);
      }
      if (response.status === 204) return undefined as T;
      const data = await response.json();
      return schema ? schema.parse(data) : (data as T);
    } finally {
      clearTimeout(timer);
    }
  }

  async login({ email, password }: Credentials): Promise<void> {
    const result = await this.request<{ token: string }>("/api/login", {
      method: "POST",
      headers: this.headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ email, password }),
    });
    this.token = result.token;
  }

  logout(): void {
    this.token = null;
  }

  async changePassword(oldPassword: string, newPassword: string): Promise<void> {
    await this.request("/api/account/password", {
      method: "POST",
      headers: this.headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ old_password: oldPassword, new_password: newPassword }),
    });
  }

  async listApiKeys(): Promise<ApiKeySummary[]> {
    return this.request<ApiKeySummary[]>("/api/keys", { headers: this.headers() });
  }

  async createApiKey(name: string): Promise<{ id: string; plaintext: string }> {
    return this.request("/api/keys", {
      method: "POST",
      headers: this.headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ name }),
    });
  }

  async revokeApiKey(id: string): Promise<void> {
    await this.request(`/api/keys/${encodeURIComponent(id)}`, {
      method: "DELETE",
      headers: this.headers(),
    });
  }

  async orders(page = 1, pageSize = 50): Promise<Order[]> {
    const query = new URLSearchParams({ page: String(page), page_size: String(pageSize) });
    return this.request(`/api/orders?${query}`, { headers: this.headers() }, z.array(OrderSchema));
  }

  async checkout(cartId: string, paymentMethod: string, idempotencyKey = crypto.randomUUID()) {
    return this.request(
      "/api/checkout",
      {
        method: "POST",
        headers: this.headers({
          "Content-Type": "application/json",
          [IDEMPOTENCY_HEADER]: idempotencyKey,
        }),
        body: JSON.stringify({ cart_id: cartId, payment_method: paymentMethod }),
      },
      OrderSchema,
    );
  }
}

export function maskSecret(value: string, keep = 4): string {
  return value.length > keep ? `${value.slice(0, keep)}…` : "…";
}

export async function sha256Hex(data: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data);
  return Array.from(new Uint8Array(digest))
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}

export function sessionCookie(sessionId: string): string {
  return `sessionid=${sessionId}; Path=/; HttpOnly; Secure; SameSite=Lax`;
}

export const ERROR_MESSAGES: Record<string, string> = {
  invalid_credentials: "Wrong email or password.",
  password_too_short: "Use at least 12 characters.",
  password_reused: "Choose a password you have not used recently.",
  token_expired: "Your session has expired. Please sign in again.",
  api_key_revoked: "This API key was revoked.",
};

export const PLACEHOLDER_AVATAR =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
