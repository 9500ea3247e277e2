package dev.padlock.internal.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.padlock.spi.Script;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Redis Functions library {@code padlock} generated from lock-lua's files (issue 40): each
 * script's text unchanged inside its function, names Redis accepts, a version that is the
 * scripts' own, in a block between marker lines; and the union a client loads where another
 * Padlock version's blocks are there: theirs kept verbatim, the oldest dropped beyond four
 * versions, a library named {@code padlock} that Padlock did not write refused. Loading it on a
 * real server is lock-tests' FunctionsAclTest.
 */
class FunctionLibraryTest {
    private static final FunctionBlock BLOCK = FunctionRoute.LOCK_LUA;
    /** One registration: its function name, then its callback's body up to the {@code end}} that closes it. */
    private static final Pattern REGISTERED = Pattern.compile(
            "redis\\.register_function\\{function_name='([A-Za-z0-9_]+)', callback=function\\(KEYS, ARGV\\)\\n(.*?)\\nend}\\n",
            Pattern.DOTALL);

    @Test
    void theLibraryIsNamedPadlockAndThisVersionsFunctionsAreABlockBetweenItsMarkers() {
        String code = FunctionLibrary.alone(BLOCK);
        assertThat(code).startsWith("#!lua name=padlock\n").endsWith(BLOCK.code());
        assertThat(BLOCK.version()).matches("[0-9a-f]{12}");
        assertThat(BLOCK.kind()).isEqualTo("version");
        assertThat(BLOCK.code()).startsWith("-- padlock version " + BLOCK.version() + " begin\n")
                .endsWith("-- padlock version " + BLOCK.version() + " end\n");
        assertThat(BLOCK.versionFunction()).isEqualTo("padlock_" + BLOCK.version() + "_version");
        FunctionLibrary parsed = FunctionLibrary.parse(code);
        assertThat(parsed.has(BLOCK)).isTrue();
        assertThat(parsed.blocks()).singleElement().satisfies(block -> assertThat(block.code()).isEqualTo(BLOCK.code()));
    }

    @ParameterizedTest
    @EnumSource(LuaScript.class)
    void everyScriptIsAFunctionWhoseCallbackIsTheFileVerbatim(LuaScript script) {
        String function = BLOCK.function(script.file());
        assertThat(function).isEqualTo("padlock_" + BLOCK.version() + "_" + script.file());
        String registration = "redis.register_function{function_name='" + function
                + "', callback=function(KEYS, ARGV)\n" + script.body() + (script.body().endsWith("\n") ? "" : "\n")
                + "end}\n";
        assertThat(BLOCK.code()).contains(registration);
        assertThat(new String(BLOCK.functionBytes(script.file()), StandardCharsets.US_ASCII)).isEqualTo(function);
        assertThat(script.body().lines()).as("no line of a script could be taken for a block's marker")
                .noneMatch(line -> line.strip().startsWith("-- padlock "));
    }

    @Test
    void theBlockRegistersEveryScriptOnceAndTheVersionProbeAndNothingElse() {
        List<String> functions = new ArrayList<>();
        Matcher registered = REGISTERED.matcher(BLOCK.code());
        while (registered.find()) {
            functions.add(registered.group(1));
        }
        assertThat(functions).hasSize(LuaScript.values().length).doesNotHaveDuplicates()
                .allMatch(name -> name.startsWith("padlock_" + BLOCK.version() + "_"));
        assertThat(BLOCK.code().split("redis\\.register_function", -1)).as("registrations")
                .hasSize(LuaScript.values().length + 2);
        assertThat(BLOCK.code()).contains("redis.register_function{function_name='" + BLOCK.versionFunction()
                + "', callback=function()\nreturn '" + BLOCK.version() + "'\nend, flags={'no-writes'}}\n");
    }

    @Test
    void theVersionIsTheScriptsOwnTheSameTextGivesTheSameVersionAndAnyChangeANewOne() {
        List<Script> scripts = List.of(Script.of("one", "return 1\n"), Script.of("two", "return KEYS[1]"));
        FunctionBlock block = version(scripts);
        assertThat(version(scripts).version()).isEqualTo(block.version());
        assertThat(FunctionRoute.LOCK_LUA.version()).as("generated once per class load, and again the same")
                .isEqualTo(version(Arrays.stream(LuaScript.values()).map(LuaScript::script).toList()).version());

        Set<String> versions = new HashSet<>();
        versions.add(block.version());
        versions.add(version(List.of(Script.of("one", "return 1\n"), Script.of("two", "return KEYS[2]"))).version());
        versions.add(version(List.of(Script.of("one", "return 1\n"), Script.of("three", "return KEYS[1]"))).version());
        versions.add(version(List.of(Script.of("two", "return KEYS[1]"), Script.of("one", "return 1\n"))).version());
        assertThat(versions).as("a changed body, name or order is another version").hasSize(4);
    }

    @Test
    void aBodyWithoutAFinalNewlineOrEndingInACommentStillClosesItsFunction() {
        FunctionBlock block = FunctionBlock.of("extension", "padlock_ext", List.of(Script.of("tail", "return 1 -- a comment")));
        assertThat(block.code()).endsWith("callback=function(KEYS, ARGV)\nreturn 1 -- a comment\nend}\n"
                + "-- padlock extension " + block.version() + " end\n");
    }

    @Test
    void namesRedisWouldRefuseAShebangAndTwoScriptsOfOneNameAreRefusedHere() {
        assertThatThrownBy(() -> version(List.of(Script.of("lock-acquire", "return 1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lock-acquire");
        assertThatThrownBy(() -> FunctionBlock.of("version", "pad lock", List.of(Script.of("a", "return 1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefix");
        assertThatThrownBy(() -> version(List.of(Script.of("a", "#!lua flags=no-writes\nreturn 1"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shebang");
        assertThatThrownBy(() -> version(List.of(Script.of("a", "return 1"), Script.of("a", "return 2"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two scripts are named a");
        assertThatThrownBy(() -> BLOCK.function("no_such_script")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anotherModulesScriptIsAnExtensionBlockOfTheSameLibraryUnderAValidName() {
        FunctionRoute route = new FunctionRoute(null);
        Script shedLock = Script.of("shedlock-lock", "return redis.call('set', KEYS[1], ARGV[1], 'nx')");
        String id = new String(route.id(shedLock), StandardCharsets.US_ASCII);
        assertThat(id).matches("padlock_ext_[0-9a-f]{12}_shedlock_lock");
        assertThat(route.id(shedLock)).as("made once a script").isSameAs(route.id(shedLock));
        assertThat(route.id(LuaScript.LOCK_ACQUIRE)).isEqualTo(BLOCK.functionBytes("lock_acquire"));

        FunctionBlock extension = FunctionBlock.of("extension", "padlock_ext", List.of(Script.of("shedlock_lock",
                shedLock.body())));
        assertThat(id).isEqualTo(extension.function("shedlock_lock"));
        String both = FunctionLibrary.parse(FunctionLibrary.alone(BLOCK)).with(extension);
        assertThat(FunctionLibrary.parse(both).versions())
                .isEqualTo(Map.of("version", List.of(BLOCK.version()), "extension", List.of(extension.version())));
    }

    /** Two Padlock versions on one server: the second adds its block after the first's, which stays as it was. */
    @Test
    void aClientWhoseBlockIsMissingLoadsTheUnionOthersBlocksVerbatimAndItsOwnLast() {
        FunctionBlock older = version(List.of(Script.of("lock_acquire", "return 0\n")));
        String existing = FunctionLibrary.alone(older);
        FunctionLibrary library = FunctionLibrary.parse(existing);
        assertThat(library.has(older)).isTrue();
        assertThat(library.has(BLOCK)).isFalse();

        String union = library.with(BLOCK);
        assertThat(union).startsWith("#!lua name=padlock\n").contains(older.code()).endsWith(BLOCK.code());
        assertThat(union.indexOf(older.code())).isLessThan(union.indexOf(BLOCK.code()));
        FunctionLibrary merged = FunctionLibrary.parse(union);
        assertThat(merged.has(older)).isTrue();
        assertThat(merged.has(BLOCK)).isTrue();
        assertThat(merged.versions().get("version")).containsExactly(older.version(), BLOCK.version());
        assertThat(merged.with(older)).as("adding a block that is there moves it last, drops nothing")
                .isEqualTo(FunctionLibrary.parse(FunctionLibrary.alone(BLOCK)).with(older));
    }

    @Test
    void theFourMostRecentlyAddedVersionsAreKeptTheOldestDroppedAndExtensionsCountApart() {
        FunctionBlock extension = FunctionBlock.of("extension", "padlock_ext", List.of(Script.of("job", "return 1")));
        String code = FunctionLibrary.alone(extension);
        List<FunctionBlock> versions = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            FunctionBlock next = version(List.of(Script.of("lock_acquire", "return " + i + "\n")));
            versions.add(next);
            code = FunctionLibrary.parse(code).with(next);
        }
        FunctionLibrary library = FunctionLibrary.parse(code);
        assertThat(library.versions().get("version")).as("the four most recently added, oldest first")
                .containsExactly(versions.get(2).version(), versions.get(3).version(), versions.get(4).version(),
                        versions.get(5).version());
        assertThat(library.has(versions.get(0))).isFalse();
        assertThat(library.has(extension)).as("not counted among versions").isTrue();

        // the dropped version's client, still running, adds its block back: the oldest of the others goes
        FunctionLibrary back = FunctionLibrary.parse(library.with(versions.get(0)));
        assertThat(back.versions().get("version")).containsExactly(versions.get(3).version(), versions.get(4).version(),
                versions.get(5).version(), versions.get(0).version());

        String extensions = FunctionLibrary.alone(BLOCK);
        for (int i = 0; i < FunctionLibrary.MAX_EXTENSIONS + 2; i++) {
            extensions = FunctionLibrary.parse(extensions).with(
                    FunctionBlock.of("extension", "padlock_ext", List.of(Script.of("job", "return " + i))));
        }
        assertThat(FunctionLibrary.parse(extensions).versions().get("extension")).hasSize(FunctionLibrary.MAX_EXTENSIONS);
        assertThat(FunctionLibrary.parse(extensions).has(BLOCK)).as("extensions do not push out versions").isTrue();
    }

    @Test
    void aLibraryNamedPadlockThatPadlockDidNotWriteIsRefusedNotReplaced() {
        String foreign = "#!lua name=padlock\nredis.register_function('hello', function() return 1 end)\n";
        assertThatThrownBy(() -> FunctionLibrary.parse(foreign)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside Padlock's version blocks");
        assertThatThrownBy(() -> FunctionLibrary.parse("#!lua name=padlock\n-- only a comment\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no '-- padlock version");
        String ours = FunctionLibrary.alone(BLOCK);
        assertThatThrownBy(() -> FunctionLibrary.parse(ours + "redis.register_function('extra', function() return 1 end)\n"))
                .as("code after the blocks").isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside");
        assertThatThrownBy(() -> FunctionLibrary.parse(ours.substring(0, ours.lastIndexOf("-- padlock version"))))
                .as("a block not closed").isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not closed");
        assertThatThrownBy(() -> FunctionLibrary.parse(ours.replace(BLOCK.version() + " end", "000000000000 end")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not close");
        assertThatThrownBy(() -> FunctionLibrary.parse(ours.replace("name=padlock", "name=other")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("first line");
    }

    @Test
    void theLibrarysCodeIsReadFromFunctionListInRespTwoAndRespThreeShapes() {
        String code = FunctionLibrary.alone(BLOCK);
        Object resp2 = List.of(List.of("library_name", "padlock", "engine", "LUA", "functions", List.of(),
                "library_code", code));
        Object resp3 = List.of(Map.of("library_name", "padlock", "engine", "LUA", "library_code", code));
        assertThat(FunctionLoader.libraryCode(resp2)).isEqualTo(code);
        assertThat(FunctionLoader.libraryCode(resp3)).isEqualTo(code);
        assertThat(FunctionLoader.libraryCode(List.of())).as("no library padlock").isNull();
        assertThat(FunctionLoader.libraryCode(List.of(Map.of("library_name", "padlock_x", "library_code", code))))
                .as("another name").isNull();
    }

    private static FunctionBlock version(List<Script> scripts) {
        return FunctionBlock.of("version", "padlock", scripts);
    }
}
