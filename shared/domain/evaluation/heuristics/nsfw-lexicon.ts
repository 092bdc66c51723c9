/**
 * The built-in judge's NSFW lexicon. Terms match whole words only, case-insensitively, with an
 * optional plural "s"/"es" (so "class", "Scunthorpe", "therapist" and "cocktail" never match).
 * `explicit` terms alone make a text NSFW; `mild` ones (profanity, anatomy a medical answer may name)
 * only in numbers. Add terms here; test/fixtures/judge keeps the precision honest.
 */
export const NSFW_LEXICON = {
  explicit: [
    // sexual content
    'porn', 'porno', 'pornography', 'pornographic', 'hardcore sex', 'anal sex', 'oral sex', 'sex tape', 'sexting', 'blowjob', 'blow job',
    'handjob', 'hand job', 'cumshot', 'orgasm', 'masturbate', 'masturbating', 'masturbation', 'dildo', 'erotica', 'nudes', 'camgirl',
    'gangbang', 'milf',
    // graphic violence and gore
    'behead', 'beheaded', 'beheading', 'decapitate', 'decapitated', 'dismember', 'dismembered', 'disembowel', 'disemboweled',
    'mutilate', 'mutilated', 'bloodbath',
    // harassment and self-harm
    'kill yourself', 'kys', 'slit your wrists', 'go die', 'you should die', 'worthless piece of shit',
    // strong profanity
    'motherfucker', 'cunt',
  ],
  mild: ['fuck', 'fucking', 'fucked', 'shit', 'bullshit', 'asshole', 'bitch', 'bastard', 'dick', 'penis', 'vagina', 'naked', 'nude', 'sexy', 'erotic', 'horny', 'stripper', 'torture', 'slaughter'],
} as const;
