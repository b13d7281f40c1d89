-- A secret's allowed hosts (SPEC §14): the host names (or `*.` + a host name) a request must go to
-- for the secret to be handed to it; empty (every existing row): no restriction.
ALTER TABLE "variables" ADD COLUMN     "allowed_hosts" TEXT[] DEFAULT ARRAY[]::TEXT[];
