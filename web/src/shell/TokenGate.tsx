//! The token gate: any 401 replaces the app with a card asking for the bearer token, which is
//! kept in local storage; Unlock refetches everything so the page that asked comes back.
import { useState, type FormEvent } from "react";
import { KeyRound } from "lucide-react";
import { Button } from "../components/ui/button";
import { Input } from "../components/ui/form";

export function TokenGate({ onUnlock }: { onUnlock: (token: string) => void }) {
  const [token, setToken] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    onUnlock(token.trim());
    setToken("");
  };
  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 p-4 dark:bg-zinc-950">
      <form onSubmit={submit} className="w-full max-w-sm rounded-xl border border-zinc-200 bg-white p-6 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
        <KeyRound className="size-8 text-accent-600" aria-hidden />
        <h1 className="mt-3 text-lg font-semibold">Token required</h1>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          This server was started with RAGDOWN_TOKEN. Enter it to read the index.
        </p>
        <label htmlFor="token" className="mt-4 block text-sm font-medium">
          Bearer token
        </label>
        <Input id="token" type="password" autoFocus autoComplete="current-password" value={token} onChange={(e) => setToken(e.target.value)} className="mt-1.5" />
        <Button type="submit" variant="primary" className="mt-4 w-full" disabled={!token.trim()}>
          Unlock
        </Button>
      </form>
    </main>
  );
}
