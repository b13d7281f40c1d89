declare module "hash-sum" {
  /** hash-sum 2.0 (Node-RED's http request marks the response headers it sets with it): an 8-hex-digit hash of any value. */
  export default function hashSum(value: unknown): string;
}
