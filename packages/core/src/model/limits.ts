// Limits shared by the wire (protocol/ validates against them) and the code that enforces them.

/** The longest path accepted, in characters (Linux's PATH_MAX). Longer input is refused at once. */
export const MAX_PATH_CHARS = 4096;
