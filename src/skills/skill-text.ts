const utf8 = new TextDecoder('utf-8', { fatal: true });
const windows1252 = new TextDecoder('windows-1252');

/**
 * The text of a SKILL.md or a skill's file: UTF-8 when it is valid UTF-8, otherwise Windows-1252
 * (what editors on Windows write), which `decodedAs` then reports so the caller can warn.
 */
export function decodeSkillText(bytes: Uint8Array): { text: string; decodedAs: 'utf-8' | 'windows-1252' } {
  try {
    return { text: utf8.decode(bytes), decodedAs: 'utf-8' };
  } catch {
    return { text: windows1252.decode(bytes), decodedAs: 'windows-1252' };
  }
}
