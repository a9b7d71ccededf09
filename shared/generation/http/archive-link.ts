import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { s3 } from "#shared/aws/clients.ts";
import { config, presignEndpoint } from "#shared/aws/config.ts";
import type { Clock } from "#shared/clock.ts";
import { type Environment, environment, positiveInt } from "#shared/config/settings.ts";

/**
 * Request ZIPs too large to stream through Lambda (README "Large responses"): above
 * `redirectBytes` the download route answers 302 to a short-lived presigned GET of the ZIP,
 * built once into S3. Lambda response streaming sends the first 6 MB unthrottled and the
 * rest at 2 MB/s within the function's 29 s; S3 serves any size at full speed.
 */
export interface ArchiveLinkSettings {
  /** ZIPs of more bytes than this are served from S3 (`PLATEN_ZIP_REDIRECT_BYTES`). */
  redirectBytes: number;
  /** Lifetime of the presigned URL in seconds (`PLATEN_ZIP_URL_SECONDS`). */
  urlSeconds: number;
}

/** Just under Lambda response streaming's unthrottled 6 MB (6,291,456 bytes): nothing streamed is ever throttled. */
export const DEFAULT_ZIP_REDIRECT_BYTES = 6_000_000;
export const DEFAULT_ZIP_URL_SECONDS = 300;
/** SigV4 query signatures are valid for at most 7 days. */
const MAX_URL_SECONDS = 604_800;

/** Reads the settings; a value that is not a positive integer (or a URL lifetime over 7 days) fails fast. */
export function archiveLinkSettings(env: Environment = environment()): ArchiveLinkSettings {
  return {
    redirectBytes: positiveInt(env, "PLATEN_ZIP_REDIRECT_BYTES") ?? DEFAULT_ZIP_REDIRECT_BYTES,
    urlSeconds: positiveInt(env, "PLATEN_ZIP_URL_SECONDS", MAX_URL_SECONDS) ?? DEFAULT_ZIP_URL_SECONDS,
  };
}

/** Whether a ZIP of `contentLength` bytes is served from S3 instead of the response stream. */
export const servedFromS3 = (contentLength: number, settings: ArchiveLinkSettings): boolean =>
  contentLength > settings.redirectBytes;

/** Where a request's ZIP is kept (its own prefix: a lifecycle rule expires it, shared/definitions/buckets.ts). */
export const archiveObjectKey = (workspaceId: string, requestId: string) => `zips/${workspaceId}/${requestId}.zip`;

/** What a presigned GET names: the object and the response headers S3 is to send with it. */
export interface PresignedGet {
  bucket: string;
  key: string;
  contentDisposition?: string;
  contentType?: string;
}

/**
 * The presigned GET URL of `get`, signed at `signingDate` for `expiresIn` seconds. The local
 * gateway verifies a URL by computing it again with the same call (infra/local/presigned-s3.ts).
 */
export async function presignGet(
  client: S3Client,
  get: PresignedGet,
  signingDate: Date,
  expiresIn: number,
): Promise<string> {
  const [{ sdk }, { getSignedUrl }] = await Promise.all([s3(), import("@aws-sdk/s3-request-presigner")]);
  const command = new sdk.GetObjectCommand({
    Bucket: get.bucket,
    Key: get.key,
    ...(get.contentDisposition !== undefined && { ResponseContentDisposition: get.contentDisposition }),
    ...(get.contentType !== undefined && { ResponseContentType: get.contentType }),
  });
  return getSignedUrl(client, command, { signingDate, expiresIn });
}

let presigner: Promise<S3Client> | undefined;

/**
 * The client whose endpoint the URL names. In AWS the SDK's own S3 endpoint; locally
 * `S3_PRESIGN_ENDPOINT` (the gateway's `/__s3`, which checks signature and expiry as S3 does).
 */
export async function presigningClient(): Promise<S3Client> {
  const endpoint = presignEndpoint();
  if (!endpoint) return (await s3()).client;
  presigner ??= presignClientFor(endpoint);
  return presigner;
}

/** A path-style client for `endpoint`, with the checksum settings of the container's S3 client (they are part of the signed query). */
export async function presignClientFor(endpoint: string): Promise<S3Client> {
  const { sdk } = await s3();
  return new sdk.S3Client({
    region: config().region,
    endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** The ZIP as `openRequestArchive` gives it, and the headers the presigned GET is to answer with. */
export interface LinkedArchive {
  stream: Readable;
  contentLength: number;
  contentDisposition: string;
}

/**
 * Stores the ZIP in S3 unless an object of exactly its length is there already (a request's
 * files never change once downloadable, so equal length means the same archive: a second
 * download builds nothing), then presigns its GET on the service clock.
 */
export async function archiveUrl(
  archive: LinkedArchive,
  ids: { workspaceId: string; requestId: string },
  clock: Clock,
  settings: ArchiveLinkSettings,
): Promise<string> {
  const bucket = config().buckets.files;
  const key = archiveObjectKey(ids.workspaceId, ids.requestId);
  if ((await storedLength(bucket, key)) === archive.contentLength) archive.stream.destroy();
  else {
    const { client, sdk } = await s3();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: archive.stream,
        ContentLength: archive.contentLength,
        ContentType: "application/zip",
      }),
    );
  }
  const get = { bucket, key, contentDisposition: archive.contentDisposition, contentType: "application/zip" };
  return presignGet(await presigningClient(), get, clock.now(), settings.urlSeconds);
}

async function storedLength(bucket: string, key: string): Promise<number | undefined> {
  try {
    const { client, sdk } = await s3();
    const head = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
    return Number(head.ContentLength ?? -1);
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
    throw err;
  }
}
