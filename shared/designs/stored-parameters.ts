import * as z from "zod";
import { type ParameterSpec, parameterTypes } from "./bundle-schema.ts";

/**
 * A design's parameter list as the designs table keeps it (in gallery entries, and in versions'
 * manifests). Only the shape, not the publish rules of `parameterSpecSchema` (lengths, unique names,
 * `.strict()`): those held when the version was published, and a stored item stays readable even
 * if a later release tightens them.
 */
export const storedParameterSpecSchema: z.ZodType<ParameterSpec> = z.lazy(() =>
  z.object({
    name: z.string(),
    type: z.enum(parameterTypes),
    label: z.string(),
    description: z.string().optional(),
    default: z.unknown().optional(),
    spec: z.array(storedParameterSpecSchema).optional(),
  }),
);
