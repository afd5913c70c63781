/** The time source of every use case (tests pass a manual one). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
