import * as z from "zod";

/**
 * OpenAPI rotateApplicationKey: the answer of a rotation (the handler returns AppKeyRotation; the
 * OpenAPI document shows this).
 */
export const appKeyRotationResponse = z.object({
  applicationKey: z.string().meta({ description: "The new key, shown once." }),
  lastRotatedAt: z
    .string()
    .meta({ description: "ISO 8601; a warning appears on responses to this key 90 days later." }),
});
