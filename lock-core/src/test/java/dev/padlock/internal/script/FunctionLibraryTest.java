package dev.padlock.internal.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.spi.Script;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Redis Functions library generated from lock-lua's files (issue 40): each script's text
 * unchanged inside its function, names Redis accepts, and a version that is the scripts' own, so
 * that two Padlock versions never take each other's library for theirs. Loading it on a real
 * server is lock-tests' FunctionsAclTest.
 */
class FunctionLibraryTest {
    private static final FunctionLibrary LIBRARY = FunctionRoute.LOCK_LUA;
    /** One registration: its function name, then its callback's body up to the {@code end}} that closes it. */
    private static final Pattern REGISTERED = Pattern.compile(
            "redis\\.register_function\\{function_name='([A-Za-z0-9_]+)', callback=function\\(KEYS, ARGV\\)\\n(.*?)\\nend}\\n",
            Pattern.DOTALL);

    @Test
    void theLibraryIsNamedPadlockAndItsVersionAndStartsWithTheLuaShebang() {
        assertThat(LIBRARY.name()).matches("padlock_[0-9a-f]{12}");
        assertThat(LIBRARY.version()).isEqualTo(LIBRARY.name().substring("padlock_".length()));
        assertThat(LIBRARY.code()).startsWith("#!lua name=" + LIBRARY.name() + "\n");
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void everyScriptIsAFunctionWhoseCallbackIsTheFileVerbatim(LuaScript script) {
        String function = LIBRARY.function(script.file());
        assertThat(function).isEqualTo(LIBRARY.name() + "_" + script.file());
        String registration = "redis.register_function{function_name='" + function
                + "', callback=function(KEYS, ARGV)\n" + script.body() + (script.body().endsWith("\n") ? "" : "\n")
                + "end}\n";
        assertThat(LIBRARY.code()).contains(registration);
        assertThat(new String(LIBRARY.functionBytes(script.file()), java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo(function);
    }

    @Test
    void theLibraryRegistersEveryScriptOnceAndTheVersionProbeAndNothingElse() {
        List<String> functions = new ArrayList<>();
        Matcher registered = REGISTERED.matcher(LIBRARY.code());
        while (registered.find()) {
            functions.add(registered.group(1));
        }
        assertThat(functions).hasSize(LuaScript.values().length).doesNotHaveDuplicates()
                .allMatch(name -> name.startsWith(LIBRARY.name() + "_"));
        assertThat(LIBRARY.code().split("redis\\.register_function", -1)).as("registrations")
                .hasSize(LuaScript.values().length + 2);
        assertThat(LIBRARY.code()).contains("redis.register_function{function_name='" + LIBRARY.versionFunction()
                + "', callback=function()\nreturn '" + LIBRARY.version() + "'\nend, flags={'no-writes'}}\n");
        assertThat(LIBRARY.versionFunction()).isEqualTo(LIBRARY.name() + "_version");
    }

    @Test
    void theVersionIsTheScriptsOwnTheSameTextGivesTheSameNameAndAnyChangeANewOne() {
        List<Script> scripts = List.of(Script.of("one", "return 1\n"), Script.of("two", "return KEYS[1]"));
        FunctionLibrary library = FunctionLibrary.of("padlock", scripts);
        assertThat(FunctionLibrary.of("padlock", scripts).name()).isEqualTo(library.name());
        assertThat(FunctionRoute.LOCK_LUA.name()).as("generated once per class load, and again the same")
                .isEqualTo(FunctionLibrary.of("padlock", java.util.Arrays.stream(LuaScript.values())
                        .map(LuaScript::script).toList()).name());

        Set<String> names = new HashSet<>();
        names.add(library.name());
        names.add(FunctionLibrary.of("padlock", List.of(Script.of("one", "return 1\n"), Script.of("two", "return KEYS[2]")))
                .name());
        names.add(FunctionLibrary.of("padlock", List.of(Script.of("one", "return 1\n"), Script.of("three", "return KEYS[1]")))
                .name());
        names.add(FunctionLibrary.of("padlock", List.of(Script.of("two", "return KEYS[1]"), Script.of("one", "return 1\n")))
                .name());
        assertThat(names).as("a changed body, name or order is another version").hasSize(4);
    }

    @Test
    void aBodyWithoutAFinalNewlineOrEndingInACommentStillClosesItsFunction() {
        FunctionLibrary library = FunctionLibrary.of("padlock_ext", List.of(Script.of("tail", "return 1 -- a comment")));
        assertThat(library.code()).endsWith("callback=function(KEYS, ARGV)\nreturn 1 -- a comment\nend}\n");
    }

    @Test
    void namesRedisWouldRefuseAShebangAndTwoScriptsOfOneNameAreRefusedHere() {
        assertThatThrownBy(() -> FunctionLibrary.of("padlock", List.of(Script.of("lock-acquire", "return 1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock-acquire");
        assertThatThrownBy(() -> FunctionLibrary.of("pad lock", List.of(Script.of("a", "return 1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefix");
        assertThatThrownBy(() -> FunctionLibrary.of("padlock", List.of(Script.of("a", "#!lua flags=no-writes\nreturn 1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shebang");
        assertThatThrownBy(() -> FunctionLibrary.of("padlock", List.of(Script.of("a", "return 1"), Script.of("a", "return 2"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two scripts are named a");
        assertThatThrownBy(() -> LIBRARY.function("no_such_script")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anotherModulesScriptIsALibraryOfItsOwnUnderAValidName() {
        FunctionRoute route = new FunctionRoute(null);
        Script shedLock = Script.of("shedlock-lock", "return redis.call('set', KEYS[1], ARGV[1], 'nx')");
        String id = new String(route.id(shedLock), java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(id).matches("padlock_ext_[0-9a-f]{12}_shedlock_lock");
        assertThat(route.id(shedLock)).as("made once a script").isSameAs(route.id(shedLock));
        assertThat(route.id(LuaScript.LOCK_ACQUIRE)).isEqualTo(LIBRARY.functionBytes("lock_acquire"));
    }
}
