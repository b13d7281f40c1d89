-- Data only: http-request's failed requests now go to catch nodes and on out of the node, as
-- Node-RED's do, unless `errors_to_catch_only` (Node-RED's senderr) is on. Before, they went only
-- to the catch nodes. So that no stored flow changes what it does, every stored http-request node
-- without the setting gets `errors_to_catch_only: true`: in flows, subflow definitions, and the
-- deployment snapshots (their nodes and their subflows), so a restart or rollback runs as before.
-- Flows that run on a device are left alone: a device's Node-RED was always given senderr: false.
CREATE FUNCTION pg_temp.catch_only(node JSONB) RETURNS JSONB AS $$
  SELECT CASE
    WHEN node->>'type' = 'http-request' AND jsonb_typeof(node->'config') = 'object' AND NOT (node->'config' ? 'errors_to_catch_only') THEN
      jsonb_set(node, '{config,errors_to_catch_only}', 'true'::jsonb)
    ELSE node
  END
$$ LANGUAGE SQL IMMUTABLE;

CREATE FUNCTION pg_temp.catch_only_all(nodes JSONB) RETURNS JSONB AS $$
  SELECT coalesce(jsonb_agg(pg_temp.catch_only(n) ORDER BY i), '[]'::jsonb)
  FROM jsonb_array_elements(nodes) WITH ORDINALITY AS t(n, i)
$$ LANGUAGE SQL IMMUTABLE;

-- A snapshot's subflows: {id: {nodes: [...], ...}}.
CREATE FUNCTION pg_temp.catch_only_subflows(subflows JSONB) RETURNS JSONB AS $$
  SELECT coalesce(jsonb_object_agg(k, CASE WHEN jsonb_typeof(v->'nodes') = 'array' THEN jsonb_set(v, '{nodes}', pg_temp.catch_only_all(v->'nodes')) ELSE v END), '{}'::jsonb)
  FROM jsonb_each(subflows) AS t(k, v)
$$ LANGUAGE SQL IMMUTABLE;

UPDATE "flows" SET "nodes" = pg_temp.catch_only_all("nodes")
WHERE jsonb_typeof("nodes") = 'array' AND "nodes" @> '[{"type": "http-request"}]'
  AND "target_device_id" IS NULL AND "target_device_tag" IS NULL;

UPDATE "subflows" SET "nodes" = pg_temp.catch_only_all("nodes")
WHERE jsonb_typeof("nodes") = 'array' AND "nodes" @> '[{"type": "http-request"}]';

UPDATE "deployments" AS d SET "snapshot" = jsonb_set(d."snapshot", '{nodes}', pg_temp.catch_only_all(d."snapshot"->'nodes'))
FROM "flows" AS f
WHERE f."id" = d."flow_id" AND f."target_device_id" IS NULL AND f."target_device_tag" IS NULL
  AND jsonb_typeof(d."snapshot"->'nodes') = 'array' AND d."snapshot"->'nodes' @> '[{"type": "http-request"}]';

UPDATE "deployments" AS d SET "snapshot" = jsonb_set(d."snapshot", '{subflows}', pg_temp.catch_only_subflows(d."snapshot"->'subflows'))
FROM "flows" AS f
WHERE f."id" = d."flow_id" AND f."target_device_id" IS NULL AND f."target_device_tag" IS NULL
  AND jsonb_typeof(d."snapshot"->'subflows') = 'object' AND position('"http-request"' IN (d."snapshot"->'subflows')::text) > 0;

DROP FUNCTION pg_temp.catch_only_subflows(JSONB);
DROP FUNCTION pg_temp.catch_only_all(JSONB);
DROP FUNCTION pg_temp.catch_only(JSONB);
