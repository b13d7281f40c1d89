-- Data only: the inject node's config becomes Node-RED's list of properties. The old fields
-- payload_type / payload / topic become props [{p: "payload", v, v_type}, {p: "topic", v, v_type: "str"}]
-- in the stored graphs (flows.nodes) and in the deployment snapshots (deployments.snapshot.nodes),
-- so every stored inject node reads as the new schema and a restart or rollback starts it unchanged.
CREATE FUNCTION pg_temp.inject_props(node JSONB) RETURNS JSONB AS $$
  SELECT CASE
    WHEN node->>'type' = 'inject' AND jsonb_typeof(node->'config') = 'object' AND NOT (node->'config' ? 'props') THEN
      jsonb_set(node, '{config}',
        ((node->'config') - 'payload_type' - 'payload' - 'topic') || jsonb_build_object('props', jsonb_build_array(
          jsonb_build_object(
            'p', 'payload',
            'v', CASE WHEN coalesce(node->'config'->>'payload_type', 'timestamp') = 'timestamp' THEN '' ELSE coalesce(node->'config'->>'payload', '') END,
            'v_type', CASE coalesce(node->'config'->>'payload_type', 'timestamp')
              WHEN 'timestamp' THEN 'date' WHEN 'string' THEN 'str' WHEN 'number' THEN 'num' WHEN 'boolean' THEN 'bool' ELSE 'json' END),
          jsonb_build_object('p', 'topic', 'v', coalesce(node->'config'->>'topic', ''), 'v_type', 'str'))))
    ELSE node
  END
$$ LANGUAGE SQL IMMUTABLE;

CREATE FUNCTION pg_temp.inject_props_all(nodes JSONB) RETURNS JSONB AS $$
  SELECT coalesce(jsonb_agg(pg_temp.inject_props(n) ORDER BY i), '[]'::jsonb)
  FROM jsonb_array_elements(nodes) WITH ORDINALITY AS t(n, i)
$$ LANGUAGE SQL IMMUTABLE;

UPDATE "flows" SET "nodes" = pg_temp.inject_props_all("nodes")
WHERE jsonb_typeof("nodes") = 'array' AND "nodes" @> '[{"type": "inject"}]';

UPDATE "deployments" SET "snapshot" = jsonb_set("snapshot", '{nodes}', pg_temp.inject_props_all("snapshot"->'nodes'))
WHERE jsonb_typeof("snapshot"->'nodes') = 'array' AND "snapshot"->'nodes' @> '[{"type": "inject"}]';

DROP FUNCTION pg_temp.inject_props_all(JSONB);
DROP FUNCTION pg_temp.inject_props(JSONB);
