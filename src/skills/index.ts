/**
 * Public surface of skills: discovery (extension manifests, --with-skills
 * user directories, built-ins), the `skill` tool, the system-prompt addendum
 * and the SKILL.md parser. Importing this module does no work; discovery runs
 * only when discoverSkills is called.
 */
export {
  BUILTIN_SKILL_PATH,
  SKILL_FILE,
  builtinSkills,
  discoverSkills,
  extensionSkillSources,
  userSkillRoots,
  visibleSkills,
  type ExtensionManifestEntry,
  type ExtensionSkillSource,
  type ShadowedSkill,
  type Skill,
  type SkillBody,
  type SkillDiscovery,
  type SkillDiscoveryOptions,
  type SkillOrigin,
} from "./discover.ts";
export { BUILTIN_SKILLS, type BuiltinSkillDefinition } from "./builtin.ts";
export { MAX_LISTED_NAMES, SKILL_TOOL_NAME, createSkillTool, formatSkillText, unknownSkillMessage, type SkillSetSource } from "./tool.ts";
export { SKILLS_PROMPT_HEADER, skillsPromptAddendum, tildePath } from "./prompt.ts";
export { parseFrontmatter, parseSkillFile, splitSkillFile, type ParsedSkillFile, type SkillFrontmatter, type SplitSkillFile } from "./parse.ts";
