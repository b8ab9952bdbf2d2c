export {
  SkillSchema,
  createSkill,
  skillIdFromName,
  skillPrompt,
  type Skill,
  type SkillFields,
} from './skill.ts';
export { SkillCatalog } from './catalog.ts';
export { FileSkillRegistry, DEFAULT_SKILLS_PATH } from './registry.ts';
export { SkillSearchIndex } from './search.ts';
export { TriggerMatcher, tokenize, foldText, type TriggerMatch } from './triggers.ts';
export { parseSkillMd, type SkillDiagnostic } from './skill-md.ts';
export { discoverProjectSkills, PROJECT_SKILL_ROOTS, type ProjectSkills } from './project.ts';
export { DEFAULT_SKILL_LISTING_CHARS, type SkillActivation, type SkillOptions } from './options.ts';
export { ALLOWED_TOOL_NAMES, mapAllowedTools } from './allowed-tools.ts';
export { skillListing, LOAD_SKILL_TOOL, READ_SKILL_FILE_TOOL, type SkillListing } from './listing.ts';
export { lintSkills, type SkillLintDiagnostic } from './lint.ts';
export { LoadSkillTool, ReadSkillFileTool, type SkillToolHost } from './skill-tools.ts';
export { selectSkills, DEFAULT_SKILL_MATCH_LIMIT, type SkillChoice } from './selection.ts';
export {
  TOOL_BUNDLES,
  BUILTIN_TOOL_NAMES,
  validateToolBundles,
  toolsForSkills,
  type BuiltinToolName,
} from './tool-bundles.ts';
