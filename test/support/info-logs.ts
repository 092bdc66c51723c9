// Imported first by a test file that needs the INFO lines: ES imports run before the importing
// module's own code, so the level must be set by a module of its own, before any module loads the logger.
process.env.LOG_LEVEL = 'INFO';
