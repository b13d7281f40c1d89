import { handleRest } from "@/server/api/rest";

// Every /api/v1 endpoint goes through the one REST adapter, which finds the tRPC procedure whose
// meta names the route. Unknown paths answer a JSON 404 from the same place.
export const dynamic = "force-dynamic";

export const GET = handleRest;
export const HEAD = handleRest;
export const POST = handleRest;
export const PUT = handleRest;
export const PATCH = handleRest;
export const DELETE = handleRest;
export const OPTIONS = handleRest;
