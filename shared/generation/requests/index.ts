/**
 * What a generation request is, before anything is written: the body's schema and validation, the params
 * rules, the files planned for it (ids, share URLs, passcodes), its design resolved and its params checked,
 * and what a document's render failure means to the client. No writes; used by sync, async, the worker and
 * the authoring checks.
 */
export {
  documentLimitError,
  isRenderDeadline,
  permanentFileFailure,
} from "./document-failure.ts";
export { checkParams } from "./params-check.ts";
export { MAX_PARAMS_DEPTH, tooDeepPath } from "./params-shape.ts";
export { PASSCODE_LENGTH, verifyPasscode } from "./passcodes.ts";
export { type PlannedFile, type PlannedRecord, planFiles, templateFileOf } from "./plan-files.ts";
export { prepareGeneration, resolveDesign } from "./prepare-generation.ts";
export { type GenerationRequest, multipleRequestSchema, singleRequestSchema } from "./request-schema.ts";
export { validateGenerationBody } from "./validate-request.ts";
