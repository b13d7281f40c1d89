import Link from "next/link";
import { PublicHeader } from "@/components/public-header";
import { serverCaller } from "@/trpc/server";

export default async function HomePage() {
  // The cookie alone decides here (no database call); a revoked session finds out on /account.
  const { signedIn } = await serverCaller();
  return (
    <>
      <PublicHeader signedIn={signedIn} flowsLink />
      <main>
        <h1>Flows for every team, run for you</h1>
        <p className="lead">
          Flowplane is a hosted, multi-organization platform for building flows of nodes (inject, function, switch,
          HTTP, MQTT, dashboards, devices), deploying them, and watching their messages arrive in real time.
        </p>
        <div className="actions">
          {signedIn ? (
            <>
              <Link href="/flows" className="button">
                Open your flows
              </Link>
              <Link href="/account/security" className="button secondary">
                Your account
              </Link>
            </>
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
            <h2>Your Node-RED flows</h2>
            <p>
              Import a flows.json and read what will run before anything is written; the core nodes behave as
              Node-RED&apos;s, and export gives you Node-RED&apos;s file back.
            </p>
          </div>
          <div className="card">
            <h2>MQTT, broker included</h2>
            <p>Connect to any broker through shared configuration nodes, or use the one built in: each organization has its own topics, and devices sign in with its API keys.</p>
          </div>
          <div className="card">
            <h2>Dashboards</h2>
            <p>Pages of charts, gauges, buttons and forms built from Dashboard 2.0 widgets, live as messages arrive.</p>
          </div>
          <div className="card">
            <h2>Devices at the edge</h2>
            <p>Run a flow on your own hardware with the device agent, deployed from here like any other.</p>
          </div>
          <div className="card">
            <h2>Teams and secure accounts</h2>
            <p>Organizations with owners, admins, members and viewers; TOTP multi-factor authentication; sessions and scoped API keys you can revoke.</p>
          </div>
          <div className="card">
            <h2>Deploy with history, and an open API</h2>
            <p>
              Every deploy is a snapshot you can roll back to. Everything the pages do is in the{" "}
              <Link href="/docs">REST API</Link> (OpenAPI 3.1), plus a WebSocket event stream.
            </p>
          </div>
        </section>
      </main>
    </>
  );
}
