// Time as the contract writes it: ISO 8601 UTC with milliseconds.
export const isoNow = (): string => new Date().toISOString();
