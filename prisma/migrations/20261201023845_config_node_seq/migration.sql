-- The order of creation of configuration nodes (Node-RED's order of them in a file): existing
-- rows take theirs from created_at (then id), new rows from the sequence.
ALTER TABLE "config_nodes" ADD COLUMN "seq" BIGINT;
UPDATE "config_nodes" AS c SET "seq" = n.rn
FROM (SELECT "organization_id", "id", row_number() OVER (ORDER BY "created_at", "id") AS rn FROM "config_nodes") AS n
WHERE c."organization_id" = n."organization_id" AND c."id" = n."id";
CREATE SEQUENCE "config_nodes_seq_seq" OWNED BY "config_nodes"."seq";
SELECT setval('"config_nodes_seq_seq"', COALESCE((SELECT max("seq") FROM "config_nodes"), 0) + 1, false);
ALTER TABLE "config_nodes" ALTER COLUMN "seq" SET DEFAULT nextval('"config_nodes_seq_seq"'), ALTER COLUMN "seq" SET NOT NULL;
