-- CreateTable
CREATE TABLE "executions" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "deployment_id" TEXT,
    "trigger_node_id" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER,
    "replay_of" TEXT,
    "error" TEXT,
    "trigger_message" JSONB,
    "steps" JSONB NOT NULL DEFAULT '[]',
    "instance_id" TEXT NOT NULL,
    "sampled" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "execution_counters" (
    "flow_id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "unrecorded" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "execution_counters_pkey" PRIMARY KEY ("flow_id")
);

-- CreateIndex
CREATE INDEX "executions_flow_id_status_started_at_id_idx" ON "executions"("flow_id", "status", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "executions_flow_id_started_at_id_idx" ON "executions"("flow_id", "started_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "executions_started_at_idx" ON "executions"("started_at");

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_flow_id_fkey" FOREIGN KEY ("flow_id") REFERENCES "flows"("id") ON DELETE CASCADE ON UPDATE CASCADE;
