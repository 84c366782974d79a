// Package escape makes untrusted text safe to show on a terminal.
//
// Text that a model writes is untrusted. Printed raw, it can carry escape
// sequences that set the window title, write or read the clipboard, clear
// the screen, move the cursor up or end a bracketed paste; a carriage
// return or backspace can overwrite a line so that a question looks like
// wisp's own approval prompt; bidirectional controls can reorder what the
// person reads; and invisible characters can hide instructions that the
// model reads but the person does not see. [Terminal] writes every such
// character visibly instead, so the person sees exactly what was sent, and
// [Unescape] reverses it exactly.
//
// Nothing is dropped: stripping would change the meaning of the text and
// hide the attempt.
//
// # Escaping
//
// [Terminal] decodes its input as UTF-8 from left to right and writes:
//
//	input                                          output
//	---------------------------------------------  -------------------------
//	a byte that does not start valid UTF-8         \x{HH}   e.g. \x{9B}, \x{FF}
//	backslash U+005C                               \\
//	ESC U+001B                                     \e
//	LF U+000A                                      \n
//	CR U+000D                                      \r
//	TAB U+0009                                     \t
//	any other unsafe rune (below)                  \u{X}    e.g. \u{0}, \u{202E}, \u{E0041}
//	any other rune                                 itself
//
// HH is exactly two uppercase hexadecimal digits. X is the code point in
// uppercase hexadecimal with no leading zeros.
//
// Invalid UTF-8 is written one byte at a time: a raw 8-bit C1 control such
// as 0x9B (CSI) or 0x9D (OSC), a stray continuation byte, a truncated
// sequence, an overlong encoding, or the encoding of a surrogate half or of
// a value above U+10FFFF.
//
// The unsafe runes, those for which [Unsafe] reports true, are:
//
//   - the C0 controls U+0000–U+001F, DEL U+007F and the C1 controls
//     U+0080–U+009F;
//   - LINE SEPARATOR U+2028 and PARAGRAPH SEPARATOR U+2029;
//   - every format character (general category Cf): the bidirectional
//     embeddings, overrides, isolates and marks U+202A–U+202E,
//     U+2066–U+2069, U+200E, U+200F and U+061C; the zero-width characters
//     U+200B–U+200D; WORD JOINER U+2060; the byte order mark U+FEFF;
//     SOFT HYPHEN U+00AD; the interlinear annotation characters
//     U+FFF9–U+FFFB; and the tag characters U+E0001 and U+E0020–U+E007F;
//   - every rune with the Other_Default_Ignorable_Code_Point property, such
//     as the Hangul fillers U+3164, U+115F, U+1160 and U+FFA0 and the
//     combining grapheme joiner U+034F;
//   - every rune with the Variation_Selector property (U+FE00–U+FE0F,
//     U+E0100–U+E01EF and the Mongolian free variation selectors);
//   - private use runes (general category Co);
//   - the replacement character U+FFFD and the noncharacters (U+FDD0–U+FDEF
//     and the last two code points of every plane, U+FFFE, U+FFFF, U+1FFFE
//     and so on).
//
// Membership of the property tables follows the Unicode version of the
// package unicode that wisp is built with.
//
// Every other rune is written as itself: letters of any script,
// punctuation, spaces and emoji. A ZERO WIDTH JOINER or VARIATION
// SELECTOR-16 inside an emoji sequence is shown escaped; fidelity matters
// more here than looks.
//
// The output of [Terminal] is valid UTF-8, holds no unsafe rune, and holds
// no byte below 0x20 and no DEL, so it is a single line: to show text over
// several lines, split it on LF first and escape each line. Because a
// backslash in the input is itself escaped, no input can produce output
// that reads as a different input: model text that contains the six
// characters \u{41} is shown as \\u{41}.
//
// # Canonical form
//
// [Unescape] accepts exactly the strings that [Terminal] can return, and
// for each returns the one input that produced it: Unescape(Terminal(x))
// == x for every string x, valid UTF-8 or not, and whenever Unescape(s)
// returns y without error, Terminal(y) == s. It reports a [*SyntaxError]
// for anything else, including escapes that are well formed but not what
// [Terminal] writes: lowercase hexadecimal, leading zeros,
// \u{1B} for \e, \u{41} for a rune that is written as itself, \x{41} or
// \x{C3}\x{A9} for bytes that form valid UTF-8, and raw unsafe runes or
// invalid UTF-8 that should have been escaped.
//
// # JSON
//
// Data for a program is JSON, not escaped text: [JSON] takes JSON text as
// encoding/json writes it and writes every unsafe rune the encoder left
// raw as a \u escape, so the text can reach a terminal as it is and still
// decodes to the same strings (wisp chat --json, and the --json of wisp's
// listings).
package escape
