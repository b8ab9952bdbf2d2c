export { createSkill, skillIdFromName, type Skill, type SkillFields } from './skill.ts';
export { SkillCatalog } from './catalog.ts';
export { FileSkillRegistry, DEFAULT_SKILLS_PATH } from './registry.ts';
export type { SkillActivation, SkillOptions } from './options.ts';
export { lintSkills, type SkillLintDiagnostic } from './lint.ts';
export { validateToolBundles, type BuiltinToolName } from './tool-bundles.ts';
