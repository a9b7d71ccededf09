import { type AdmissionMemory, admissionMemory } from "#shared/http/admit.ts";
import { type PlanMemory, planMemory } from "./render-ahead.ts";

/**
 * What a container remembers between sync requests, all of it in one place: a cold request's
 * early work (early-work.ts) reads what the requests before it left. Made once per container,
 * by the handler at module load, and passed in: to admission (its `admissions`, through the
 * route's options) and to the pipeline below it.
 */
export interface SyncMemory {
  /**
   * Admission's (shared/http/admit.ts): the workspace of each key admitted here, the workspaces
   * over their rate limit, and the requests being admitted now, which storing yields to.
   */
  admissions: AdmissionMemory;
  /** Whether each workspace's plan stops at its page limit, as last admitted here (render-ahead.ts). */
  plans: PlanMemory;
}

/** A fresh container's memory: no key admitted, no plan seen. */
export const syncMemory = (): SyncMemory => ({ admissions: admissionMemory(), plans: planMemory() });
