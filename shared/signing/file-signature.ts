import * as z from "zod";

/** What a signed file's record says of its signature (the site's file view shows it). */
export const fileSignatureSchema = z.object({
  /** The signer certificate's subject. */
  subject: z.string(),
  /** The signature dictionary's /M (ISO 8601). */
  signedAt: z.string(),
  level: z.enum(["B-B", "B-T"]),
});
export type FileSignature = z.infer<typeof fileSignatureSchema>;
