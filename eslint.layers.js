// The layer rules of docs/ARCHITECTURE.md as ESLint settings, in one file so the config and the
// test that proves each rule bites (src/test/layers.test.ts) read the same table.

const UI = ["./src/app", "./src/features", "./src/components", "./src/trpc"];

/** import-x/no-restricted-paths zones: files under `target` may not import files under `from`. */
export const layerZones = [
  {
    target: "./src/server",
    from: UI,
    message: "Layer rule: src/server never imports the UI (app/, features/, components/, trpc/).",
  },
  {
    target: ["./src/features", "./src/components"],
    from: "./src/server",
    message: "Layer rule 1: features/ and components/ reach the server only through tRPC (src/trpc).",
  },
  {
    // Pages and layouts; the route handlers under app/api and app/hooks are the transport mounts.
    target: ["./src/app/!(api|hooks)/**/*", "./src/app/*.{ts,tsx}"],
    from: "./src/server",
    message: "Layer rule 1: pages reach the server only through tRPC (src/trpc/server.ts for server components).",
  },
  {
    target: "./src/shared",
    from: ["./src/server", ...UI],
    message: "src/shared is isomorphic: it imports neither the server nor the UI.",
  },
  {
    target: "./src/server/api",
    from: ["./src/server/db.ts", "./src/generated"],
    message: "Layer rule 2: routers and REST handlers call services; no database access.",
  },
  {
    target: "./src/server/services",
    from: ["./src/server/api", "./src/server/http", "./src/server/realtime/hub.ts", "./src/server/realtime/admission.ts"],
    message: "Layer rule 3: services never see a request, a response or the transports.",
  },
  {
    // next-auth's options, which call the login services, are a transport mount (api/next-auth-options.ts).
    target: "./src/server/auth",
    from: ["./src/server/services", "./src/server/api"],
    message: "server/auth holds credential primitives: the services build on it, so it calls no service and no transport.",
  },
  {
    // The composition root builds everything below it; nothing below imports it back (a second app, or a circle).
    target: ["./src/server", "./src/app"],
    from: "./src/server/compose.ts",
    message: "Layer rule 9: only the custom server (src/server.ts), the tests and the benchmarks compose the app; code under src/server takes the AppServices it is given.",
  },
  {
    // auth/ sits below the services that AppServices lists: it names the narrow part it uses (auth/auth-deps.ts).
    target: "./src/server/auth",
    from: ["./src/server/app-services.ts", "./src/server/compose.ts"],
    message: "Layer rule 9: server/auth takes the narrow AuthDeps (auth/auth-deps.ts), never the whole AppServices: the app's type lists the services built on auth, so naming it closes a circle.",
  },
  {
    target: ["./src/server/runtime", "./src/server/nodes"],
    from: [
      "./src/server/db.ts",
      "./src/generated",
      "./src/server/api",
      "./src/server/http",
      "./src/server/services",
      "./src/server/realtime",
      "./src/server/flow-runtime",
      "./src/server/auth",
      "./src/server/store",
      "./src/server/mail",
      "./src/server/app-services.ts",
      "./src/server/services-slot.ts",
    ],
    message: "Layer rule 4: the runtime and the nodes know nothing of the database, the store, the services or the transports.",
  },
  {
    // The engine reads node types through EngineOptions.types (NodeRegistry.runtimeTypes()): roles, never names.
    target: "./src/server/runtime/**/!(*.test).ts",
    from: "./src/server/nodes",
    message: "Layer rule 4: the runtime never imports a node folder or the registry; node types reach the engine through EngineOptions.types (their roles, never their names).",
  },
  {
    // The registry imports every folder through the generated index: a folder importing it back would be a circle.
    target: "./src/server/nodes/*/**/!(*.test).ts",
    from: ["./src/server/nodes/registry.ts", "./src/server/nodes/folders.generated.ts"],
    message: "A node folder declares its type and is found by the registry; it never imports the registry or the folder index.",
  },
  {
    // Issue 33: the runtime's persistence (context rows, ...) lives below the services, so the flow
    // runtime never reaches up into a service for SQL.
    target: "./src/server/flow-runtime",
    from: ["./src/server/services", "./src/server/api", "./src/server/http", "./src/server/app-services.ts"],
    message: "The flow runtime sits below the services: the SQL it shares with them lives in src/server/persistence, never in a service.",
  },
  {
    target: "./src/server/persistence",
    from: [
      "./src/server/services",
      "./src/server/api",
      "./src/server/http",
      "./src/server/flow-runtime",
      "./src/server/realtime",
      "./src/server/app-services.ts",
      "./src/server/services-slot.ts",
    ],
    message: "src/server/persistence holds statements the services and the flow runtime share: it sits below both and imports neither.",
  },
  {
    // The Node-RED mapping is the bottom of the import/export: it reads nothing and calls no service,
    // so node-red.ts and node-red-subflows.ts build on it without importing each other (issue 33).
    target: "./src/server/services/flows/node-red-mapping.ts",
    from: [
      "./src/server/services/flows/node-red.ts",
      "./src/server/services/flows/node-red-subflows.ts",
      "./src/server/services/flows/flows.ts",
      "./src/server/services/flows/deployments.ts",
      "./src/server/services/subflows",
      "./src/server/services/config-nodes",
      "./src/server/db.ts",
      "./src/server/app-services.ts",
    ],
    message: "The Node-RED mapping (node-red-mapping.ts) is pure: it imports neither the database nor the import/export services built on it.",
  },
  {
    target: "./src/server/services/flows/node-red-subflows.ts",
    from: "./src/server/services/flows/node-red.ts",
    message: "node-red.ts builds on node-red-subflows.ts, never the reverse: what both need lives in node-red-mapping.ts.",
  },
  {
    target: "./src/server/realtime",
    from: "./src/server/services",
    message: "Realtime never imports services: what the hub needs of them is passed to createRealtimeHub (src/server.ts).",
  },
  {
    // The running flows are one boundary: AppServices.flowRuntime (src/server/flow-runtime/types.ts).
    target: ["./src/server/services", "./src/server/api", "./src/server/realtime", "./src/server/auth", "./src/server/mail", "./src/app"],
    from: [
      "./src/server/flow-runtime/local.ts",
      "./src/server/flow-runtime/clustered.ts",
      "./src/server/flow-runtime/cluster-bus.ts",
      "./src/server/runtime/engine.ts",
      "./src/server/runtime/sandbox",
    ],
    message:
      "Layer rule 6: the running flows are reached only through app.flowRuntime (the FlowRuntime interface, flow-runtime/types.ts), never an implementation, the engine or the sandbox: a flow may run on another instance.",
  },
];

const RUNTIME_PACKAGES = ["@prisma/*", "next", "next/*", "next-auth", "next-auth/*", "@trpc/*", "pg", "ioredis", "@electric-sql/*"];

/** Packages a layer may not use (packages have one spelling, so names are enough). */
export const layerPackageRules = [
  {
    files: ["src/server/runtime/**/*.ts", "src/server/nodes/**/*.ts"],
    ignores: ["**/*.test.ts", "src/server/nodes/postgresql/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: RUNTIME_PACKAGES, message: "Layer rule 4: no Prisma, Next, tRPC or database drivers in the runtime." }] }],
    },
  },
  {
    // The postgresql node's own driver: it connects to the user's PostgreSQL (through the outbound
    // rules), never to this application's database, which it cannot name.
    files: ["src/server/nodes/postgresql/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: RUNTIME_PACKAGES.filter((p) => p !== "pg"), message: "Layer rule 4: no Prisma, Next, tRPC or database drivers in the runtime (pg only for the user's database)." }] }],
    },
  },
  {
    // Type imports from src/generated are a path zone above; these are the packages themselves.
    files: ["src/server/api/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["@prisma/*", "pg", "ioredis", "@electric-sql/*"], message: "Layer rule 2: routers and REST handlers call services; no database or store drivers." }] }],
    },
  },
  {
    files: ["src/server/services/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["next", "next/*", "next-auth", "next-auth/*", "@trpc/*"], message: "Layer rule 3: services never see Next or tRPC." }] }],
    },
  },
  {
    files: ["src/features/**/*.{ts,tsx}", "src/components/**/*.{ts,tsx}", "src/shared/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["@prisma/*", "pg", "ioredis", "bcrypt", "node:*"], message: "Browser code uses no server packages." }] }],
    },
  },
];

/**
 * app-services.ts holds the app's types only; compose.ts builds them. A value import there would
 * make every file that names AppServices load what it lists.
 */
export const layerTypeOnlyRules = [
  {
    files: ["src/server/app-services.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportDeclaration[importKind!='type'], ExportNamedDeclaration[declaration.type=/^(VariableDeclaration|FunctionDeclaration|ClassDeclaration)$/]",
          message: "Layer rule 9: app-services.ts holds types only (`import type`, interfaces); the code that builds the app is compose.ts.",
        },
      ],
    },
  },
];

const NO_DB = "Layer rule 2: routers and REST handlers call services; no Prisma and no database handle (`ctx.services.db`).";

/**
 * Routers could reach Prisma through the context (`ctx.services.db.prisma`, `db["prisma"]`,
 * `ctx.services.db.sql`, `const { prisma } = ctx.services.db`), which no import rule sees. The API
 * layer never names the database handle, in any spelling.
 */
export const layerSyntaxRules = [
  {
    files: ["src/server/api/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        { selector: "MemberExpression[property.name=/^(db|prisma)$/]", message: NO_DB },
        { selector: "MemberExpression[property.value=/^(db|prisma)$/]", message: NO_DB },
        { selector: "ObjectPattern > Property[key.name=/^(db|prisma)$/]", message: NO_DB },
        { selector: "ObjectPattern > Property[key.value=/^(db|prisma)$/]", message: NO_DB },
      ],
    },
  },
];
