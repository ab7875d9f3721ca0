package heuristics

// The word lists below are switch statements rather than maps so that they
// are immutable and need no initialization.

// isStopWord reports whether a lowercased word carries no meaning for retrieval:
// English stop words, contractions and conversational filler (including
// generic task words like "fix", "bug", "please", "same", "other").
func isStopWord(w string) bool {
	switch w {
	case "a", "able", "about", "above", "actually", "after", "again", "against", "all", "already",
		"also", "am", "an", "and", "another", "any", "anything", "anyway", "are", "aren't", "as",
		"at", "basically", "be", "because", "been", "before", "being", "below", "between", "bit",
		"both", "bug", "bugs", "but", "by", "can", "can't", "cannot", "chore", "could",
		"couldn't", "currently", "did", "didn't", "do", "does", "doesn't", "doing", "don't",
		"done", "down", "during", "each", "earlier", "eg", "else", "etc", "even", "ever",
		"everything", "feat", "few", "fix", "fixed", "fixes", "fixing", "for", "former", "from",
		"further", "had", "hadn't", "has", "hasn't", "have", "haven't", "having", "he", "he'd",
		"he'll", "he's", "hello", "help", "her", "here", "here's", "hers", "herself", "hey", "hi",
		"him", "himself", "his", "hmm", "how", "how's", "i", "i'd", "i'll", "i'm", "i've", "idea",
		"ie", "if", "in", "instead", "into", "is", "isn't", "issue", "issues", "it", "it's",
		"its", "itself", "just", "kind", "know", "latter", "let", "let's", "lets", "like", "lol",
		"look", "looking", "looks", "lot", "lots", "made", "make", "makes", "making", "many",
		"may", "maybe", "me", "might", "more", "most", "much", "must", "mustn't", "my", "myself",
		"need", "needed", "needs", "nit", "nits", "no", "nope", "nor", "not", "nothing", "now",
		"of", "off", "ok", "okay", "on", "once", "one", "ones", "only", "or", "other", "others",
		"ought", "our", "ours", "ourselves", "out", "over", "own", "perhaps", "please", "pls",
		"plz", "previous", "probably", "problem", "problems", "quick", "quickly", "really",
		"refactor", "rest", "same", "see", "seem", "seems", "shall", "shan't", "she", "she'd",
		"she'll", "she's", "should", "shouldn't", "simply", "so", "some", "somehow", "someone",
		"something", "somewhere", "sort", "still", "stuff", "such", "sure", "tell", "than",
		"thank", "thanks", "that", "that's", "the", "their", "theirs", "them", "themselves",
		"then", "there", "there's", "these", "they", "they'd", "they'll", "they're", "they've",
		"thing", "things", "think", "this", "those", "through", "thx", "to", "too", "tried",
		"try", "trying", "ty", "typo", "typos", "under", "until", "up", "very", "via", "want",
		"wanted", "wants", "was", "wasn't", "way", "we", "we'd", "we'll", "we're", "we've",
		"well", "were", "weren't", "what", "what's", "when", "when's", "where", "where's",
		"which", "while", "who", "who's", "whom", "why", "why's", "will", "wip", "with", "won't",
		"work", "worked", "working", "works", "would", "wouldn't", "yeah", "yep", "yes", "yet",
		"you", "you'd", "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves":
		return true
	}
	return false
}

// isPrefixLabel reports whether a lowercased word before a colon at the start
// of a line is a label ("note:", "error:", "got:") rather than a package.
func isPrefixLabel(w string) bool {
	switch w {
	case "actual", "also", "answer", "background", "bonus", "cause", "caused", "caveat", "cc",
		"change", "changes", "closes", "context", "debug", "description", "detail", "details",
		"edit", "error", "errors", "example", "examples", "exception", "expected", "fatal",
		"fixme", "goal", "got", "hack", "hint", "how", "important", "info", "input", "log",
		"motivation", "nb", "note", "notes", "output", "panic", "ps", "question", "reason", "ref",
		"refs", "related", "repro", "resolves", "result", "results", "see", "solution", "stderr",
		"stdout", "steps", "summary", "test", "testing", "tests", "tip", "tldr", "todo", "trace",
		"traceback", "update", "updated", "usage", "want", "warn", "warning", "warnings", "what",
		"why", "xxx":
		return true
	}
	return false
}

// isConventionalType reports whether a lowercased word is a Conventional
// Commits type ("feat", "fix", ...), whose scope names the package.
func isConventionalType(w string) bool {
	switch w {
	case "build", "chore", "ci", "deps", "doc", "docs", "feat", "fix", "perf", "refactor",
		"release", "revert", "style", "test", "tests", "wip":
		return true
	}
	return false
}

// isSlashWord reports whether a lowercased word joined by "/" marks prose
// ("true/false", "w/") rather than a path.
func isSlashWord(w string) bool {
	switch w {
	case "either", "false", "n", "no", "off", "on", "s", "true", "w", "yes":
		return true
	}
	return false
}

// isExtension reports whether ext (without the dot, case-sensitive) is a
// source, configuration or documentation file extension.
func isExtension(w string) bool {
	switch w {
	case "adoc", "asm", "astro", "bash", "bat", "bazel", "bzl", "c", "cc", "cfg", "cjs", "clj",
		"cljs", "cmake", "cmd", "conf", "cpp", "cs", "cshtml", "css", "csv", "cxx", "dart",
		"dockerfile", "edn", "ejs", "elm", "erb", "erl", "ex", "exs", "fish", "fs", "fsx",
		"go", "gql", "gradle", "graphql", "groovy", "h", "hbs", "hcl", "hh", "hpp", "hrl", "hs",
		"htm", "html", "hxx", "ini", "ipynb", "j2", "java", "jinja", "jl", "js", "json", "json5",
		"jsonc", "jsx", "kt", "kts", "less", "lock", "lua", "markdown", "md", "mdx", "mjs", "mk",
		"ml", "mli", "mm", "nix", "php", "pl", "pm", "properties", "proto", "ps1",
		"pug", "py", "pyi", "razor", "rb", "rs", "rst", "sass", "scala", "scss", "sh", "sol",
		"sql", "star", "sv", "svelte", "svg", "swift", "tex", "tf", "tfvars", "thrift",
		"tmpl", "toml", "tpl", "ts", "tsv", "tsx", "txt", "vb", "vhd", "vue", "wasm", "wat",
		"xml", "xsd", "yaml", "yml", "zig", "zsh":
		return true
	}
	return false
}

// isFileName reports whether a lowercased name is a well-known build or
// configuration file without an extension.
func isFileName(w string) bool {
	switch w {
	case "brewfile", "caddyfile", "containerfile", "dockerfile", "earthfile", "fastfile",
		"gemfile", "gnumakefile", "guardfile", "jenkinsfile", "justfile", "makefile", "pipfile",
		"podfile", "procfile", "rakefile", "snakefile", "tiltfile", "vagrantfile":
		return true
	}
	return false
}

// isDotfileName reports whether t is a well-known configuration dotfile
// (besides the *rc and *ignore ones).
func isDotfileName(w string) bool {
	switch w {
	case ".babelrc", ".editorconfig", ".env", ".envrc", ".eslintrc", ".gitattributes",
		".gitconfig", ".gitmodules", ".htaccess", ".mailmap", ".nvmrc", ".prettierrc",
		".tool-versions":
		return true
	}
	return false
}

// isJSFramework reports whether a lowercased name followed by ".js" is a
// framework ("Node.js", "Vue.js") rather than a file.
func isJSFramework(w string) bool {
	switch w {
	case "alpine", "angular", "backbone", "chart", "d3", "deno", "ember", "express", "next",
		"node", "nuxt", "react", "socket", "solid", "three", "vue":
		return true
	}
	return false
}

// isBrand reports whether a lowercased camel-case word is a product name
// (GitHub, macOS, PostgreSQL) rather than an identifier.
func isBrand(w string) bool {
	switch w {
	case "actionscript", "airpods", "appveyor", "bigquery", "bitbucket", "chatgpt", "circleci",
		"clickhouse", "clion", "cockroachdb", "coffeescript", "datadog", "datagrip", "devops",
		"devtools", "dynamodb", "fastapi", "freebsd", "gitea", "github", "gitlab", "goland",
		"graphql", "icloud", "intellij", "ios", "ipad", "ipados", "iphone", "ipod", "itunes",
		"javascript", "jetbrains", "latex", "linkedin", "macbook", "macos", "mongodb", "mysql",
		"netbsd", "newrelic", "nodejs", "numpy", "oauth", "openai", "openapi", "openbsd",
		"openssh", "openssl", "paypal", "phpstorm", "playstation", "postgresql", "powershell",
		"pycharm", "pytorch", "rabbitmq", "rubymine", "scipy", "sourcegraph", "sqlserver",
		"stackoverflow", "tensorflow", "tiktok", "travisci", "typescript", "vscode",
		"webassembly", "webkit", "webstorm", "whatsapp", "wordpress", "youtube":
		return true
	}
	return false
}

// isShouting reports whether a lowercased all-caps word is emphasis
// ("IMPORTANT", "BROKEN") rather than a constant.
func isShouting(w string) bool {
	switch w {
	case "again", "always", "anything", "asap", "blocker", "breaking", "broken", "caution",
		"crash", "crashed", "crashes", "critical", "deprecated", "every", "everything", "failed",
		"failing", "fails", "help", "important", "major", "minor", "never", "nothing", "please",
		"really", "right", "seriously", "still", "stop", "totally", "urgent", "warning", "wrong":
		return true
	}
	return false
}

// isDomain reports whether the last part of an all-lowercase dotted name is
// a top-level domain ("example.com"), so the name is not an identifier.
func isDomain(w string) bool {
	switch w {
	case "ai", "app", "cn", "co", "com", "de", "dev", "edu", "fr", "gov", "io", "jp", "me", "net",
		"org", "ru", "uk", "us":
		return true
	}
	return false
}
