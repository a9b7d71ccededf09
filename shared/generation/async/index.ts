/**
 * An async request outside its worker: accepted (202, its files queued), and ended when its acceptance or
 * its rendering stalled (the sweeper) or a local restart lost its messages (recovery).
 */
export { type AcceptedFile, acceptAsync } from "./accept-async.ts";
export { recoverUnfinishedRequests } from "./recover-requests.ts";
export { ACCEPT_DEADLINE_SECONDS, RENDER_DEADLINE_SECONDS, type SweepReport, sweepStalled } from "./sweep.ts";
