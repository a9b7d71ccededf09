import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { GetObjectCommandOutput } from "@aws-sdk/client-s3";
import { s3 } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { presignClientFor, presignGet } from "#shared/generation/http/index.ts";

/** Path prefix of presigned GETs on the local gateway (`S3_PRESIGN_ENDPOINT` = `<origin>/__s3`). */
export const PRESIGNED_S3_PREFIX = "/__s3/";

/** What S3 answers a cross-origin GET under the files bucket's CORS rule. */
const BROWSER_GET_CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Content-Disposition, Content-Length, Content-Type",
};

/**
 * Serves a presigned S3 GET as S3 would: the local S3 store reads objects but checks no
 * signature or expiry, so the local gateway does, with the SDK's own signer — it presigns the
 * same GET again (same host, object, response headers, date and lifetime) and compares every
 * query parameter, signature included. Expiry is measured on the service clock, which signed it.
 * Errors are S3's: 403 `AccessDenied` (expired, unsigned), 403 `SignatureDoesNotMatch`,
 * 404 `NoSuchKey`.
 */
export async function servePresignedGet(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  // The files bucket's CORS rule (shared/definitions/buckets.ts `browserGet`): a browser's
  // fetch follows the API's 302 here with the API's headers, so it asks first.
  if (req.method === "OPTIONS") {
    res.writeHead(200, {
      ...BROWSER_GET_CORS,
      "Access-Control-Allow-Methods": "GET, HEAD",
      "Access-Control-Allow-Headers": req.headers["access-control-request-headers"] ?? "*",
      "Access-Control-Max-Age": "600",
      "Content-Length": "0",
    });
    res.end();
    return;
  }
  if (req.method !== "GET") return s3Error(res, 405, "MethodNotAllowed", "Only GET is presigned here.");
  const q = url.searchParams;
  const signedAt = amzDate(q.get("X-Amz-Date"));
  const expires = Number(q.get("X-Amz-Expires"));
  if (!signedAt || !Number.isInteger(expires) || !q.get("X-Amz-Signature")) {
    return s3Error(
      res,
      403,
      "AccessDenied",
      "Query-string authentication requires the X-Amz-Date, X-Amz-Expires and X-Amz-Signature parameters.",
    );
  }
  if (systemClock.now().getTime() > signedAt.getTime() + expires * 1000)
    return s3Error(res, 403, "AccessDenied", "Request has expired");
  const [bucket = "", ...rest] = url.pathname.slice(PRESIGNED_S3_PREFIX.length).split("/");
  const get = {
    bucket: decodeURIComponent(bucket),
    key: decodeURIComponent(rest.join("/")),
    contentDisposition: q.get("response-content-disposition") ?? undefined,
    contentType: q.get("response-content-type") ?? undefined,
  };
  // The local credentials are well known, so a signature alone proves little here: only what
  // the service presigns (request ZIPs in the files bucket) is served at all.
  if (get.bucket !== config().buckets.files || !get.key.startsWith("zips/") || get.key.split("/").includes("..")) {
    return s3Error(res, 403, "AccessDenied", "Access Denied");
  }
  const expected = new URL(
    await presignGet(await presignClientFor(`http://${req.headers.host}/__s3`), get, signedAt, expires),
  );
  if (!sameQuery(expected.searchParams, q) || expected.pathname !== url.pathname) {
    return s3Error(
      res,
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided.",
    );
  }
  return sendObject(res, get);
}

/** Every parameter equal, none added; the signature compared in constant time. */
function sameQuery(expected: URLSearchParams, actual: URLSearchParams): boolean {
  const keys = (p: URLSearchParams) => [...p.keys()].sort().join("&");
  if (keys(expected) !== keys(actual)) return false;
  for (const [k, v] of expected) if (k !== "X-Amz-Signature" && actual.get(k) !== v) return false;
  const a = Buffer.from(expected.get("X-Amz-Signature") ?? "");
  const b = Buffer.from(actual.get("X-Amz-Signature") ?? "");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `20261124T080000Z` → Date, or undefined. */
function amzDate(value: string | null): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? "");
  return m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) : undefined;
}

async function sendObject(
  res: ServerResponse,
  get: { bucket: string; key: string; contentDisposition?: string; contentType?: string },
): Promise<void> {
  const object = await getObject(get.bucket, get.key);
  if (!object) return s3Error(res, 404, "NoSuchKey", "The specified key does not exist.");
  res.writeHead(200, {
    ...BROWSER_GET_CORS,
    "Content-Type": get.contentType ?? object.ContentType ?? "application/octet-stream",
    "Content-Length": String(object.ContentLength ?? 0),
    ...(get.contentDisposition && { "Content-Disposition": get.contentDisposition }),
  });
  await pipeline(Readable.from(object.Body as unknown as AsyncIterable<Uint8Array>), res);
}

async function getObject(bucket: string, key: string): Promise<GetObjectCommandOutput | undefined> {
  const { client, sdk } = await s3();
  try {
    return await client.send(new sdk.GetObjectCommand({ Bucket: bucket, Key: key }));
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
    throw err;
  }
}

function s3Error(res: ServerResponse, status: number, code: string, message: string): void {
  const body = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
  res.writeHead(status, {
    ...BROWSER_GET_CORS,
    "Content-Type": "application/xml",
    "Content-Length": String(body.length),
  });
  res.end(body);
}
