package dev.padlock.tests.scripts;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code redis.call} and {@code redis.pcall} of every script Padlock ships (each module's
 * {@code src/main/resources/**}{@code /*.lua}: lock-lua's, the ShedLock provider's, any tool's) names
 * its command with a string literal: Aliyun's and Tencent's cluster proxies refuse a script whose
 * command name is computed, and a literal is what lets a reader (or a server) know which commands
 * a script runs. The two accepted shapes are {@code redis.call('name', ...)} and
 * {@code pcall(redis.call, 'name', ...)}; {@code redis.call} used any other way (passed on, put in
 * a local) is refused too, since its command could then come from anywhere.
 *
 * <p>Reads the files as text, with a small Lua lexer: comments and the insides of strings are not
 * code. Needs no Redis.
 */
class LiteralCommandNamesTest {

    @Test
    void everyRedisCallOfEveryShippedScriptNamesItsCommandLiterally() throws IOException {
        List<Path> scripts = shippedScripts(root());
        assertThat(scripts).as("shipped scripts found")
                .anyMatch(p -> p.endsWith(Path.of("dev/padlock/lua/lock_release.lua")))
                .anyMatch(p -> p.endsWith(Path.of("dev/padlock/shedlock/shedlock_lock.lua")))
                .hasSizeGreaterThan(25);
        List<String> found = new ArrayList<>();
        for (Path script : scripts) {
            for (String problem : problems(Files.readString(script))) {
                found.add(root().relativize(script) + ":" + problem);
            }
        }
        assertThat(found).as("redis.call / redis.pcall whose command is not a string literal").isEmpty();
    }

    @Test
    void theCheckFindsEveryComputedCommand() {
        assertThat(problems("""
                redis.call('set', KEYS[1], ARGV[1])
                local ok, heard = pcall(redis.call, 'publish', KEYS[2], 'm')
                redis.pcall("del", KEYS[1]) -- redis.call(ARGV[1]) in a comment is no call
                local text = 'redis.call(ARGV[1])'
                --[[ redis.call(x) ]]
                """)).isEmpty();
        assertThat(problems("""
                redis.call(ARGV[4], KEYS[2], ARGV[1])
                local ok = pcall(redis.call, ARGV[3], KEYS[2], ARGV[1])
                redis.pcall('set' .. suffix, KEYS[1], 1)
                local call = redis.call
                redis.call(command)
                """)).hasSize(5).first().asString().startsWith("1: ");
    }

    /** Each {@code redis.call}/{@code redis.pcall} of {@code lua} not in an accepted shape, as "line: what". */
    static List<String> problems(String lua) {
        List<Token> tokens = LuaTokens.of(lua);
        List<String> problems = new ArrayList<>();
        for (int i = 0; i + 2 < tokens.size(); i++) {
            if (!tokens.get(i).is("redis") || !tokens.get(i + 1).is(".")
                    || !(tokens.get(i + 2).is("call") || tokens.get(i + 2).is("pcall"))) {
                continue;
            }
            String what = "redis." + tokens.get(i + 2).text();
            int after = i + 3;
            boolean called = after < tokens.size() && tokens.get(after).is("(");
            boolean passedToPcall = i >= 2 && tokens.get(i - 1).is("(") && tokens.get(i - 2).is("pcall")
                    && after < tokens.size() && tokens.get(after).is(",");
            if (!called && !passedToPcall) {
                problems.add(tokens.get(i).line() + ": " + what + " is used other than called with its command");
            } else if (!literalArgument(tokens, after + 1)) {
                problems.add(tokens.get(i).line() + ": " + what + "'s command is not a string literal");
            }
        }
        return problems;
    }

    /** Whether the argument starting at {@code i} is one string literal alone. */
    private static boolean literalArgument(List<Token> tokens, int i) {
        return i + 1 < tokens.size() && tokens.get(i).string()
                && (tokens.get(i + 1).is(",") || tokens.get(i + 1).is(")"));
    }

    private static List<Path> shippedScripts(Path root) throws IOException {
        List<Path> scripts = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
                Path resources = module.resolve("src/main/resources");
                if (Files.isDirectory(resources)) {
                    try (Stream<Path> files = Files.walk(resources)) {
                        files.filter(p -> p.toString().endsWith(".lua")).sorted().forEach(scripts::add);
                    }
                }
            }
        }
        return scripts;
    }

    /** The checkout: the directory above this module that holds the root pom and lock-lua. */
    private static Path root() {
        Path here = Path.of("").toAbsolutePath();
        for (Path dir = here; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("lock-lua"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no Padlock checkout above " + here);
    }

    /** One token: a name, a string literal (its text not kept), or any other symbol; its line. */
    record Token(String text, boolean string, int line) {
        boolean is(String symbol) {
            return !string && text.equals(symbol);
        }
    }

    /** A Lua lexer just fine enough to tell code from comments and strings. */
    static final class LuaTokens {
        private final String lua;
        private final List<Token> tokens = new ArrayList<>();
        private int at;
        private int line = 1;

        private LuaTokens(String lua) {
            this.lua = lua;
        }

        static List<Token> of(String lua) {
            LuaTokens lexer = new LuaTokens(lua);
            lexer.run();
            return lexer.tokens;
        }

        private void run() {
            while (at < lua.length()) {
                char c = lua.charAt(at);
                if (c == '\n') {
                    line++;
                    at++;
                } else if (Character.isWhitespace(c)) {
                    at++;
                } else if (lua.startsWith("--", at)) {
                    at += 2;
                    if (longBracketLevel() < 0) {
                        while (at < lua.length() && lua.charAt(at) != '\n') {
                            at++;
                        }
                    } else {
                        skipLongBracket();
                    }
                } else if (c == '\'' || c == '"') {
                    int start = line;
                    skipQuoted(c);
                    tokens.add(new Token("", true, start));
                } else if (c == '[' && longBracketLevel() >= 0) {
                    int start = line;
                    skipLongBracket();
                    tokens.add(new Token("", true, start));
                } else if (Character.isLetter(c) || c == '_') {
                    int start = at;
                    while (at < lua.length() && (Character.isLetterOrDigit(lua.charAt(at)) || lua.charAt(at) == '_')) {
                        at++;
                    }
                    tokens.add(new Token(lua.substring(start, at), false, line));
                } else if (lua.startsWith("..", at)) {
                    int start = at;
                    while (at < lua.length() && lua.charAt(at) == '.') {
                        at++;
                    }
                    tokens.add(new Token(lua.substring(start, at), false, line));
                } else {
                    tokens.add(new Token(String.valueOf(c), false, line));
                    at++;
                }
            }
        }

        /** The level of a long bracket opening at {@code at} ({@code [[} is 0, {@code [=[} is 1), else -1. */
        private int longBracketLevel() {
            if (at >= lua.length() || lua.charAt(at) != '[') {
                return -1;
            }
            int i = at + 1;
            while (i < lua.length() && lua.charAt(i) == '=') {
                i++;
            }
            return i < lua.length() && lua.charAt(i) == '[' ? i - at - 1 : -1;
        }

        private void skipLongBracket() {
            int level = longBracketLevel();
            String close = "]" + "=".repeat(level) + "]";
            int end = lua.indexOf(close, at + level + 2);
            int stop = end < 0 ? lua.length() : end + close.length();
            for (int i = at; i < stop; i++) {
                if (lua.charAt(i) == '\n') {
                    line++;
                }
            }
            at = stop;
        }

        private void skipQuoted(char quote) {
            at++;
            while (at < lua.length() && lua.charAt(at) != quote && lua.charAt(at) != '\n') {
                at += lua.charAt(at) == '\\' ? 2 : 1;
            }
            at++;
        }
    }
}
