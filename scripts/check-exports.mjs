// After `npm run build`: the package imports by its own name and by every published subpath.
import assert from 'node:assert/strict';

const expected = {
  'toolkit-agent': [
    'Agent',
    'AgentClient',
    'createAgentWorker',
    'BaseConnectorTool',
    'InMemoryCredentialStore',
    'InMemoryMemoryStore',
    'SqliteMemoryStore',
    'ScriptedModel',
    'CredentialError',
    'ToolInputError',
    'UpstreamError',
    'RateLimitError',
    'PermissionError',
    'NotFoundError',
    'EmbeddedTemporalServer',
    'FileCredentialStore',
    'CustomAPITool',
    'ToolSearchTool',
    'httpRequest',
    'errorForResponse',
    'SkillCatalog',
    'FileSkillRegistry',
    'DEFAULT_SKILLS_PATH',
    'skillIdFromName',
    'createSkill',
    'validateToolBundles',
    'aiSdkModel',
    'LocalLlamaModel',
    'ModelError',
    'PostgresMemoryStore',
    'AgentChatSession',
    'DeepAgent',
    'DriveSuiteOAuthHelper',
    'ChatOAuthHelper',
    'InMemoryOAuthStateStore',
    'FileOAuthStateStore',
    'loopbackLogin',
  ],
  'toolkit-agent/client': ['AgentClient', 'AgentRunHandle'],
  'toolkit-agent/worker': ['createAgentWorker', 'buildAgentWorkflowBundle'],
  'toolkit-agent/testing': ['ScriptedModel', 'InMemoryCredentialStore', 'InMemoryMemoryStore'],
  'toolkit-agent/tools/connector_base': ['BaseConnectorTool'],
  'toolkit-agent/tools/custom_api': ['CustomAPITool'],
  'toolkit-agent/tools/issue_tracker': ['IssueTrackerTool'],
  'toolkit-agent/tools/chat': ['ChatTool'],
  'toolkit-agent/tools/project_tracker': ['ProjectTrackerTool'],
  'toolkit-agent/tools/notes': ['NotesTool'],
  'toolkit-agent/tools/wiki': ['WikiTool'],
  'toolkit-agent/tools/calendar': ['CalendarTool'],
  'toolkit-agent/tools/mail': ['MailTool'],
  'toolkit-agent/tools/file_drive': ['FileDriveTool'],
  'toolkit-agent/skills/tool_bundles': ['validateToolBundles', 'TOOL_BUNDLES'],
};

for (const [specifier, names] of Object.entries(expected)) {
  const module = await import(specifier);
  for (const name of names) assert.ok(module[name], `${specifier} does not export ${name}`);
  console.log(`ok ${specifier}: ${names.join(', ')}`);
}
