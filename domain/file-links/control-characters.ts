/** Control characters (C0 U+0000–U+001F, DEL U+007F, C1 U+0080–U+009F): refused in links and editor commands. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}
