import Link from "next/link";
import { PublicHeader } from "@/components/public-header";
import { serverCaller } from "@/trpc/server";

export default async function HomePage() {
  // The cookie alone decides here (no database call); a revoked session finds out on /account.
  const { signedIn } = await serverCaller();
  return (
    <>
      <PublicHeader signedIn={signedIn} />
      <main>
        <h1>Flows for every team, run for you</h1>
        <p className="lead">
          Flowplane is a hosted, multi-organization platform for building flows of nodes (inject, function, switch,
          HTTP, devices), deploying them, and watching their messages arrive in real time.
        </p>
        <div className="actions">
          {signedIn ? (
            <Link href="/account/security" className="button">
              Go to your account
            </Link>
          ) : (
            <>
              <Link href="/register" className="button">
                Create an account
              </Link>
              <Link href="/login" className="button secondary">
                Log in
              </Link>
            </>
          )}
          <Link href="/docs" className="button secondary">
            Read the API docs
          </Link>
        </div>
        <section className="features" aria-label="What you get">
          <div className="card">
            <h2>Organizations and roles</h2>
            <p>Owners, admins, members and viewers, with one permission table enforced on every call.</p>
          </div>
          <div className="card">
            <h2>Secure accounts</h2>
            <p>TOTP multi-factor authentication with backup codes, sessions you can list and revoke, scoped API keys.</p>
          </div>
          <div className="card">
            <h2>Deploy with history</h2>
            <p>Every deploy is a snapshot you can roll back to; concurrent edits never overwrite each other.</p>
          </div>
          <div className="card">
            <h2>An open API</h2>
            <p>
              Everything the pages do is in the <Link href="/docs">REST API</Link>, described by OpenAPI 3.1, plus a
              WebSocket event stream.
            </p>
          </div>
        </section>
      </main>
    </>
  );
}
