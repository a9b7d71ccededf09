import { createHash, randomBytes } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { TimestampError } from "./signing-errors.ts";
import { toArrayBuffer } from "./pkcs12.ts";

const SHA256 = "2.16.840.1.101.3.4.2.1";
const TST_INFO = "1.2.840.113549.1.9.16.1.4";

/** Where and how to ask for a time-stamp (the deployment's `PLATEN_TSA_URL`). */
export interface TimestampAuthority {
  url: string;
  policyOid?: string;
  timeoutMs: number;
}

/**
 * An RFC 3161 time-stamp token over `data` (a SignerInfo's signature value): a TimeStampReq with the
 * SHA-256 imprint, a random nonce, `certReq` and the optional policy, POSTed as
 * `application/timestamp-query`. The answer must be granted, and its token must carry the same imprint
 * and nonce. @returns the token (a CMS ContentInfo, DER)
 * @throws TimestampError, transient for a TSA that is down, slow, overloaded (5xx, 429) or "waiting";
 * not transient for a refusal or an answer that does not match the request
 */
export async function requestTimestamp(data: Buffer, tsa: TimestampAuthority): Promise<Buffer> {
  const digest = createHash("sha256").update(data).digest();
  const nonce = randomBytes(8);
  // A positive INTEGER in minimal DER: the top bit clear and the first byte never zero (a TSA refuses
  // a non-minimal encoding as a bad request).
  nonce[0] = (nonce[0]! & 0x7f) | 0x01;
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      // SHA-2 parameters absent, as RFC 5754 says to generate them.
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(digest) }),
    }),
    nonce: new asn1js.Integer({ valueHex: toArrayBuffer(nonce) }),
    certReq: true,
    ...(tsa.policyOid !== undefined && { reqPolicy: tsa.policyOid }),
  });
  const body = Buffer.from(request.toSchema().toBER());
  let answer: Response;
  try {
    answer = await fetch(tsa.url, {
      method: "POST",
      headers: { "Content-Type": "application/timestamp-query", Accept: "application/timestamp-reply" },
      body,
      signal: AbortSignal.timeout(tsa.timeoutMs),
    });
  } catch (cause) {
    const timedOut = cause instanceof Error && cause.name === "TimeoutError";
    throw new TimestampError(
      timedOut
        ? `the time-stamp authority did not answer within ${tsa.timeoutMs} ms`
        : "the time-stamp authority could not be reached",
      { transient: true, cause },
    );
  }
  if (!answer.ok) {
    await answer.body?.cancel().catch(() => undefined);
    const transient = answer.status >= 500 || answer.status === 429 || answer.status === 408;
    throw new TimestampError(`the time-stamp authority answered HTTP ${answer.status}`, { transient });
  }
  let reply: Buffer;
  try {
    // The timeout also covers the body: a TSA that sends its headers and then stalls is a slow TSA.
    reply = Buffer.from(await answer.arrayBuffer());
  } catch (cause) {
    const timedOut = cause instanceof Error && cause.name === "TimeoutError";
    throw new TimestampError(
      timedOut
        ? `the time-stamp authority's answer did not arrive within ${tsa.timeoutMs} ms`
        : "the time-stamp authority's answer broke off",
      { transient: true, cause },
    );
  }
  try {
    return checkedToken(reply, digest, nonce);
  } catch (cause) {
    if (cause instanceof TimestampError) throw cause;
    // asn1js/pkijs throw plain errors on a malformed structure: an answer that cannot be read is a refusal.
    throw new TimestampError("the time-stamp authority's answer could not be read", { transient: false, cause });
  }
}

/** The token of a TimeStampResp, checked against what was asked. @throws TimestampError */
function checkedToken(reply: Buffer, digest: Buffer, nonce: Buffer): Buffer {
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(toArrayBuffer(reply));
  } catch (cause) {
    throw new TimestampError("the time-stamp authority's answer is not a TimeStampResp", { transient: false, cause });
  }
  const status = response.status.status;
  if (status === 3) throw new TimestampError("the time-stamp authority asked to wait", { transient: true });
  if ((status !== 0 && status !== 1) || !response.timeStampToken) {
    const text = response.status.statusStrings?.map((s) => s.valueBlock.value).join("; ");
    throw new TimestampError(
      `the time-stamp authority refused the request (status ${status}${text ? `: ${text}` : ""})`,
      { transient: false },
    );
  }
  const token = response.timeStampToken;
  const signed = new pkijs.SignedData({ schema: token.content });
  const content = signed.encapContentInfo;
  if (content.eContentType !== TST_INFO || !content.eContent)
    throw new TimestampError("the time-stamp token holds no TSTInfo", { transient: false });
  const info = pkijs.TSTInfo.fromBER(toArrayBuffer(Buffer.from(content.eContent.getValue())));
  const imprint = Buffer.from(info.messageImprint.hashedMessage.getValue());
  if (info.messageImprint.hashAlgorithm.algorithmId !== SHA256 || !imprint.equals(digest))
    throw new TimestampError("the time-stamp token is not over the signature value", { transient: false });
  const tokenNonce = info.nonce ? Buffer.from(info.nonce.valueBlock.valueHexView) : undefined;
  if (!tokenNonce || !stripZeros(tokenNonce).equals(stripZeros(nonce)))
    throw new TimestampError("the time-stamp token's nonce is not the request's", { transient: false });
  return Buffer.from(token.toSchema().toBER());
}

const stripZeros = (bytes: Buffer): Buffer => {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  return bytes.subarray(i);
};
