/** The package's version (package.json's; a test holds them equal). */
export const VERSION = "0.1.0";
