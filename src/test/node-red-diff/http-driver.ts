import type { Arrival, DiffRequest } from "./types";

/**
 * Requests to a flow's http-in paths, made the same way against Node-RED's server and ours (the
 * differential harness's HTTP driver): each answer is an arrival of collector `<METHOD> <path>`
 * with its `statusCode`, its `contentType` and `location` when sent, and, for a status below 400,
 * its body as text (`payload`). An error's body is each server's own (Express's page, our error
 * envelope) and is not compared. Redirects are recorded, not followed.
 */
export function requestsDriver(requests: DiffRequest[], base: string) {
  return async (record: (arrival: Arrival) => void) => {
    for (const r of requests) {
      const method = r.method.toUpperCase();
      let body: BodyInit | undefined;
      if (r.upload) {
        const form = new FormData();
        form.append(r.upload.field, new Blob([r.upload.content], { type: "text/plain" }), r.upload.filename);
        body = form;
      } else body = r.body;
      const res = await fetch(`${base}${r.path}`, { method, body, headers: r.headers, redirect: "manual" });
      const text = await res.text();
      const contentType = res.headers.get("content-type");
      const location = res.headers.get("location");
      record({
        collector: `${method} ${r.path}`,
        msg: { statusCode: res.status, ...(contentType && res.status < 400 ? { contentType } : {}), ...(location ? { location } : {}), ...(res.status < 400 ? { payload: text } : {}) },
      });
    }
  };
}
