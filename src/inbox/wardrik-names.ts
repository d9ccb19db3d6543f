/**
 * Letters drawn like the Latin ones of "wardrik" (Unicode's confusables for w, a, r, d, i, k, in the
 * scripts a name field takes: Cyrillic, Greek, Armenian, Latin extensions), each mapped to the one it
 * passes for, so "wаrdrik" with a Cyrillic а is the same name to a reader and to this check.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  ԝ: 'w',
  ѡ: 'w',
  ɯ: 'w',
  ա: 'w',
  а: 'a',
  α: 'a',
  ɑ: 'a',
  ⱥ: 'a',
  г: 'r',
  ᴦ: 'r',
  ɼ: 'r',
  ꭇ: 'r',
  ԁ: 'd',
  ɗ: 'd',
  ꓒ: 'd',
  і: 'i',
  ı: 'i',
  ι: 'i',
  ɩ: 'i',
  ӏ: 'i',
  ί: 'i',
  к: 'k',
  κ: 'k',
  ĸ: 'k',
  ⲕ: 'k',
};
const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join('')}]`, 'gu');

/**
 * Whether `name` is, or looks like, one Wardrik records as `by` for itself (`wardrik (policy.approvalTtlMs)`,
 * `wardrik (the node running its call stopped; …)`): case, width, spacing, punctuation, invisible letters
 * (the Hangul fillers count as letters but show nothing) and look-alike letters aside, it starts with
 * "wardrik". Nobody may answer under one, so an answer recorded under one is always Wardrik's own.
 */
export function isWardrikName(name: string): boolean {
  const folded = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
    .replace(LOOK_ALIKE, (letter) => LOOK_ALIKES[letter] ?? letter);
  return folded.replace(/[^\p{L}\p{N}]/gu, '').startsWith('wardrik');
}
