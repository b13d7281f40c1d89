-- CreateTable
CREATE TABLE "flows" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "nodes" JSONB NOT NULL DEFAULT '[]',
    "connections" JSONB NOT NULL DEFAULT '[]',
    "node_count" INTEGER NOT NULL DEFAULT 0,
    "state" TEXT NOT NULL DEFAULT 'not_deployed',
    "state_error" TEXT,
    "current_deployment_id" TEXT,
    "deployed_revision" INTEGER,
    "deployed_at" TIMESTAMPTZ(3),
    "created_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "flows_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "flow_nodes" (
    "organization_id" TEXT NOT NULL,
    "node_id" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,

    CONSTRAINT "flow_nodes_pkey" PRIMARY KEY ("organization_id","node_id")
);

-- CreateTable
CREATE TABLE "deployments" (
    "id" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "snapshot" JSONB NOT NULL,
    "deployed_by_id" TEXT NOT NULL,
    "deployed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rolled_back_from" TEXT,

    CONSTRAINT "deployments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "flows_organization_id_created_at_id_idx" ON "flows"("organization_id", "created_at" DESC, "id");

-- CreateIndex
CREATE INDEX "flow_nodes_flow_id_idx" ON "flow_nodes"("flow_id");

-- CreateIndex
CREATE INDEX "deployments_flow_id_deployed_at_idx" ON "deployments"("flow_id", "deployed_at" DESC);

-- AddForeignKey
ALTER TABLE "flows" ADD CONSTRAINT "flows_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flow_nodes" ADD CONSTRAINT "flow_nodes_flow_id_fkey" FOREIGN KEY ("flow_id") REFERENCES "flows"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_flow_id_fkey" FOREIGN KEY ("flow_id") REFERENCES "flows"("id") ON DELETE CASCADE ON UPDATE CASCADE;
