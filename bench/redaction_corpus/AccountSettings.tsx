import { useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { ApiError, type ApiKeySummary, maskSecret } from "../api/client";
import { useShopClient } from "../api/context";
import { Button } from "../ui/Button";
import { Dialog } from "../ui/Dialog";
import { PasswordStrength } from "./PasswordStrength";

type PasswordForm = {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
};

const EMPTY_FORM: PasswordForm = { currentPassword: "", newPassword: "", confirmPassword: "" };
const MIN_PASSWORD_LENGTH = 12;
const QUERY_KEY = ["account", "api-keys"] as const;

export function ChangePasswordForm() {
  const { t } = useTranslation("account");
  const client = useShopClient();
  const [form, setForm] = useState<PasswordForm>(EMPTY_FORM);
  const [error, setError] = useState<string | null>(null);
  const tooShort = form.newPassword.length > 0 && form.newPassword.length < MIN_PASSWORD_LENGTH;
  const mismatch = form.confirmPassword.length > 0 && form.newPassword !== form.confirmPassword;

  const mutation = useMutation({
    mutationFn: () => client.changePassword(form.currentPassword, form.newPassword),
    onSuccess: () => setForm(EMPTY_FORM),
    onError: (err) => setError(err instanceof ApiError ? err.detail : t("errors.generic")),
  });

  const update = (field: keyof PasswordForm) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setForm((previous) => ({ ...previous, [field]: event.target.value }));

  return (
    <form
      className="stack"
      onSubmit={(event) => {
        event.preventDefault();
        if (!tooShort && !mismatch) mutation.mutate();
      }}
    >
      <label htmlFor="current-password">{t("password.current")}</label>
      <input
        id="current-password"
        type="password"
        autoComplete="current-password"
        value={form.currentPassword}
        onChange={update("currentPassword")}
        required
      />
      <label htmlFor="new-password">{t("password.new")}</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        minLength={MIN_PASSWORD_LENGTH}
        value={form.newPassword}
        onChange={update("newPassword")}
        aria-invalid={tooShort}
        required
      />
      <PasswordStrength password={form.newPassword} />
      <label htmlFor="confirm-password">{t("password.confirm")}</label>
      <input
        id="confirm-password"
        type="password"
        autoComplete="new-password"
        value={form.confirmPassword}
        onChange={update("confirmPassword")}
        aria-invalid={mismatch}
        required
      />
      {tooShort && <p role="alert">{t("password.tooShort", { min: MIN_PASSWORD_LENGTH })}</p>}
      {mismatch && <p role="alert">{t("password.mismatch")}</p>}
      {error && <p role="alert">{error}</p>}
      <Button type="submit" disabled={mutation.isPending}>
        {t("password.save")}
      </Button>
    </form>
  );
}

export function ApiKeyList() {
  const { t } = useTranslation("account");
  const client = useShopClient();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<string | null>(null);
  const [name, setName] = useState("");
  const keys = useQuery({ queryKey: QUERY_KEY, queryFn: () => client.listApiKeys() });

  const create = useMutation({
    mutationFn: () => client.createApiKey(name),
    onSuccess: (result) => {
      setCreated(result.plaintext);
      setName("");
      void queryClient.invalidateQueries({ queryKey: QUERY_KEY });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => client.revokeApiKey(id),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: QUERY_KEY }),
  });

  const sorted = useMemo(
    () => [...(keys.data ?? [])].sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    [keys.data],
  );

  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">{t("apiKeys.title")}</h2>
      <ul>
        {sorted.map((key: ApiKeySummary) => (
          <li key={key.id} data-testid={`api-key-${key.id}`}>
            <code>{key.prefix}…</code> {key.name}
            <span className="muted">
              {key.lastUsedAt ? t("apiKeys.lastUsed", { when: key.lastUsedAt }) : t("apiKeys.never")}
            </span>
            <Button variant="danger" onClick={() => revoke.mutate(key.id)}>
              {t("apiKeys.revoke")}
            </Button>
          </li>
        ))}
      </ul>
      <input
        aria-label={t("apiKeys.name")}
        value={name}
        onChange={(event) => setName(event.target.value)}
        placeholder="ci-deploy"
      />
      <Button onClick={() => create.mutate()} disabled={!name || create.isPending}>
        {t("apiKeys.create")}
      </Button>
      {created && (
        <Dialog title={t("apiKeys.createdTitle")} onClose={() => setCreated(null)}>
          <p>{t("apiKeys.shownOnce")}</p>
          <code data-testid="new-api-key">{created}</code>
          <p className="muted">{maskSecret(created)}</p>
        </Dialog>
      )}
    </section>
  );
}

export const STRINGS = {
  "password.current": "Current password",
  "password.new": "New password",
  "password.confirm": "Repeat the new password",
  "password.tooShort": "Use at least {{min}} characters.",
  "password.mismatch": "The passwords do not match.",
  "apiKeys.title": "API keys",
  "apiKeys.shownOnce": "Copy this key now: it is shown only once.",
  "apiKeys.revoke": "Revoke",
};
