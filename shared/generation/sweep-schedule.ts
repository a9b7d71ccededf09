/** How often the sweeper runs (sweep.ts): the EventBridge schedule in AWS, a timer in the local stack. */
export const SWEEP_EVERY_MINUTES = 5;
