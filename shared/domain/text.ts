/**
 * Rules for the text a client sends. A JSON string may hold what no stored text should: NUL (cut
 * off by C libraries and many terminals), an unpaired UTF-16 surrogate (no character at all; it
 * cannot be encoded as UTF-8 again) and U+FFFD, the replacement character that bytes which were
 * not UTF-8 become on the way in, so that a body which was not UTF-8 is refused, not stored mangled.
 */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const TEXT_RULE = 'Text must be valid UTF-8 without NUL characters or unpaired surrogates.';

/** Whether `text` breaks the rule above. */
export function isUnsafeText(text: string): boolean {
  return text.includes('\u0000') || text.includes('\uFFFD') || UNPAIRED_SURROGATE.test(text);
}
