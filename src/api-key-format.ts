// What an API key's text must be for a request to carry it and the server to accept it: one rule for
// the key configured at start (config.ts) and for every key a request presents (keys.service.ts).

export const API_KEY_MIN_LENGTH = 8;
export const API_KEY_MAX_LENGTH = 512;

/** The rule in words, for messages and the docs. */
export const API_KEY_RULE = `${API_KEY_MIN_LENGTH} to ${API_KEY_MAX_LENGTH} printable ASCII characters, without a space at either end`;

/**
 * Whether a key can ever be used. The length: a shorter key is too easy to guess, a longer one not
 * worth hashing. The characters: an HTTP header drops the spaces at its ends and carries no control
 * character, and the server reads a header's bytes as Latin-1, so a non-ASCII key would arrive as
 * other characters than were registered.
 */
export function isUsableApiKey(key: string): boolean {
  return key.length >= API_KEY_MIN_LENGTH && key.length <= API_KEY_MAX_LENGTH && PRINTABLE_WITHOUT_END_SPACES.test(key);
}

const PRINTABLE_WITHOUT_END_SPACES = /^[!-~](?:[ -~]*[!-~])?$/;
