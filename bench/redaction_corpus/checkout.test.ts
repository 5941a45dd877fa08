import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";

import { ApiError, ShopClient, maskSecret, sessionCookie, sha256Hex } from "./client";

const BASE_URL = "https://api.test.local";
const ORDER_ID = "9c5b94b1-35ad-49bb-b118-8e8fc24abf80";
const CART_ID = "3d6f0a2e-7c1b-4b8e-9f2a-6e5d4c3b2a19";
// Test doubles: nothing here is a real credential.
const TEST_PASSWORD = "hunter2";
const FAKE_TOKEN = "test-token";

const server = setupServer(
  http.post(`${BASE_URL}/api/login`, async ({ request }) => {
    const body = (await request.json()) as { email: string; password: string };
    if (body.password !== TEST_PASSWORD) {
      return HttpResponse.json({ detail: "Wrong email or password." }, { status: 401 });
    }
    return HttpResponse.json({ token: FAKE_TOKEN });
  }),
  http.get(`${BASE_URL}/api/orders`, ({ request }) => {
    if (request.headers.get("Authorization") !== `Bearer ${FAKE_TOKEN}`) {
      return HttpResponse.json({ detail: "Not signed in." }, { status: 401 });
    }
    return HttpResponse.json([
      { id: ORDER_ID, status: "paid", total: "39.80", createdAt: "2026-11-30T12:00:00Z" },
    ]);
  }),
  http.post(`${BASE_URL}/api/checkout`, ({ request }) => {
    const key = request.headers.get("Idempotency-Key");
    return HttpResponse.json(
      { id: ORDER_ID, status: "pending_payment", total: "39.80", createdAt: "2026-11-30T12:00:00Z" },
      { status: 201, headers: { "X-Idempotency-Key": key ?? "" } },
    );
  }),
  http.delete(`${BASE_URL}/api/keys/:id`, () => new HttpResponse(null, { status: 204 })),
);

beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe("ShopClient", () => {
  it("signs in and sends the token afterwards", async () => {
    const client = new ShopClient({ baseUrl: BASE_URL });
    await client.login({ email: "ada@example.com", password: TEST_PASSWORD });
    const orders = await client.orders();
    expect(orders).toHaveLength(1);
    expect(orders[0].id).toBe(ORDER_ID);
  });

  it("reports a wrong password as an ApiError", async () => {
    const client = new ShopClient({ baseUrl: BASE_URL });
    await expect(client.login({ email: "ada@example.com", password: "nope" })).rejects.toEqual(
      new ApiError(401, "Wrong email or password."),
    );
  });

  it("sends an idempotency key with every checkout", async () => {
    const client = new ShopClient({ baseUrl: BASE_URL, token: FAKE_TOKEN });
    const spy = vi.spyOn(crypto, "randomUUID").mockReturnValue("0e7c5b3a-9d1f-4c2e-8b6a-7f5e4d3c2b1a");
    const order = await client.checkout(CART_ID, "pm_card_visa");
    expect(order.status).toBe("pending_payment");
    expect(spy).toHaveBeenCalledOnce();
  });

  it("revokes an api key", async () => {
    const client = new ShopClient({ baseUrl: BASE_URL, apiKey: "sk_shop_testkey" });
    await expect(client.revokeApiKey("2c9a6b1e-4d3f-4a5b-8c7d-9e0f1a2b3c4d")).resolves.toBeUndefined();
  });

  it("aborts a request that takes too long", async () => {
    server.use(http.get(`${BASE_URL}/api/orders`, () => new Promise(() => {})));
    const client = new ShopClient({ baseUrl: BASE_URL, token: FAKE_TOKEN, timeoutMs: 10 });
    await expect(client.orders()).rejects.toThrow();
  });
});

describe("helpers", () => {
  it("masks all but the start of a secret", () => {
    expect(maskSecret("sk_shop_abcdefgh")).toBe("sk_s…");
    expect(maskSecret("abc")).toBe("…");
  });

  it("builds a session cookie with safe attributes", () => {
    const sessionId = "0123456789abcdef";
    expect(sessionCookie(sessionId)).toContain("HttpOnly; Secure; SameSite=Lax");
  });

  it("hashes the empty body to the well-known digest", async () => {
    const digest = await sha256Hex(new ArrayBuffer(0));
    expect(digest).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it.each([
    ["password", "Current password"],
    ["token", "Session token"],
    ["apiKey", "API key"],
  ])("labels the %s field", (field, label) => {
    expect(label.length).toBeGreaterThan(field.length - 10);
  });
});

export const fixtures = {
  user: { id: "6f1c1a3e-8a0e-4d7b-9b1e-2f0c5d9a7e31", email: "ada@example.com" },
  order: { id: ORDER_ID, cartId: CART_ID, total: "39.80" },
  webhook: {
    signature: "t=1764504000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
    secretHint: "whk_…3f2a",
  },
  avatar:
    "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7",
};
