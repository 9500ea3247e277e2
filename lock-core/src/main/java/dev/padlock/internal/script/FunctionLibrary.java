package dev.padlock.internal.script;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text of the Redis Functions library {@code padlock}, as Redis holds it: the
 * {@code #!lua name=padlock} line, a comment, then {@link FunctionBlock}s, oldest first, each the
 * functions of one Padlock version (or of another module's script) between its marker lines.
 *
 * <h2>Sharing the library between Padlock versions</h2>
 * A client reads the library ({@code FUNCTION LIST LIBRARYNAME padlock WITHCODE}) and, when its own
 * block is missing, loads the union: the blocks there plus its own, last ({@link #with}), keeping
 * the {@value #MAX_VERSIONS} most recently added Padlock versions and {@value #MAX_EXTENSIONS}
 * extension blocks; an older one is dropped, and its client, should one still run, adds it back at
 * its next call ({@code Function not found}). So two to four versions running side by side during
 * a rolling upgrade each find their functions, and nobody reloads after the first merge. Two
 * clients merging at the same moment may each drop the other's block; the one that lost it finds
 * its function missing at its next call, merges again and sends the call once more: it converges.
 *
 * <p>A library named {@code padlock} that has no Padlock blocks, or code outside them, is someone
 * else's: {@link #parse} refuses it rather than have a client replace it.
 */
final class FunctionLibrary {
    /** The library's name, as the contract gives it. */
    static final String NAME = "padlock";
    /** The most Padlock versions (blocks of kind {@code version}) the library keeps. */
    static final int MAX_VERSIONS = 4;
    /** The most extension blocks (another module's script, each) the library keeps. */
    static final int MAX_EXTENSIONS = 16;
    private static final String HEADER = "#!lua name=" + NAME + "\n"
            + "-- Padlock's scripts as Redis Functions (" + FunctionBlock.FORMAT + "), generated: do not edit. One block a"
            + " Padlock version or another module's script; a client adds its own where missing\n";
    /** A block's marker line: kind, version, edge. */
    private static final Pattern MARKER = Pattern.compile("-- padlock ([A-Za-z0-9_]+) ([A-Za-z0-9_]+) (begin|end)");
    /** The first line: Lua, named {@code padlock}, whatever else it says. */
    private static final Pattern SHEBANG = Pattern.compile("#!lua\\b.*\\bname=" + NAME + "(\\s.*)?");

    /** One block as found: its kind and version, and its text, markers included. */
    record Block(String kind, String version, String code) {
    }

    /** Oldest first. */
    private final List<Block> blocks;

    private FunctionLibrary(List<Block> blocks) {
        this.blocks = List.copyOf(blocks);
    }

    /** {@return the code of a library of {@code block} alone: what a server without the library is given} */
    static String alone(FunctionBlock block) {
        return HEADER + block.code();
    }

    /**
     * The library whose code Redis answered, as blocks.
     *
     * @throws IllegalArgumentException saying why, when the code is not Padlock's: no marker lines,
     *     a block not closed, or code outside the blocks
     */
    static FunctionLibrary parse(String code) {
        List<Block> blocks = new ArrayList<>();
        String[] lines = code.split("\n", -1);
        if (!SHEBANG.matcher(lines[0].strip()).matches()) {
            throw new IllegalArgumentException("its first line is not #!lua name=" + NAME + ": " + lines[0]);
        }
        Block open = null;
        StringBuilder text = new StringBuilder();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            Matcher marker = MARKER.matcher(line.strip());
            boolean isMarker = marker.matches();
            if (open == null) {
                if (isMarker && marker.group(3).equals("begin")) {
                    open = new Block(marker.group(1), marker.group(2), "");
                    text.setLength(0);
                    text.append(line).append('\n');
                } else if (isMarker || !(line.isBlank() || line.strip().startsWith("--"))) {
                    throw new IllegalArgumentException("line " + (i + 1) + " is outside Padlock's version blocks: " + line);
                }
                continue;
            }
            if (isMarker) {
                if (!marker.group(3).equals("end") || !marker.group(1).equals(open.kind())
                        || !marker.group(2).equals(open.version())) {
                    throw new IllegalArgumentException("line " + (i + 1) + " does not close the block " + open.kind() + " "
                            + open.version() + ": " + line);
                }
                blocks.add(new Block(open.kind(), open.version(), text.append(line).append('\n').toString()));
                open = null;
                continue;
            }
            text.append(line).append('\n');
        }
        if (open != null) {
            throw new IllegalArgumentException("the block " + open.kind() + " " + open.version() + " is not closed");
        }
        if (blocks.isEmpty()) {
            throw new IllegalArgumentException("it has no '-- padlock version <version> begin' marker");
        }
        return new FunctionLibrary(blocks);
    }

    /** {@return the blocks, oldest first} */
    List<Block> blocks() {
        return blocks;
    }

    /** {@return whether the library holds {@code block}: one of its kind and version} */
    boolean has(FunctionBlock block) {
        return blocks.stream().anyMatch(b -> b.kind().equals(block.kind()) && b.version().equals(block.version()));
    }

    /**
     * The code of this library with {@code block} added last, the oldest blocks of its kind dropped
     * beyond {@value #MAX_VERSIONS} versions or {@value #MAX_EXTENSIONS} extension blocks: what a
     * client loads with {@code FUNCTION LOAD REPLACE} when its block is missing.
     */
    String with(FunctionBlock block) {
        List<Block> union = new ArrayList<>(blocks);
        union.removeIf(b -> b.kind().equals(block.kind()) && b.version().equals(block.version()));
        union.add(new Block(block.kind(), block.version(), block.code()));
        int cap = block.kind().equals(FunctionBlock.VERSION) ? MAX_VERSIONS : MAX_EXTENSIONS;
        long over = union.stream().filter(b -> b.kind().equals(block.kind())).count() - cap;
        for (int i = 0; over > 0 && i < union.size(); i++) {
            if (union.get(i).kind().equals(block.kind())) {
                union.remove(i--);
                over--;
            }
        }
        StringBuilder code = new StringBuilder(HEADER);
        union.forEach(b -> code.append(b.code()));
        return code.toString();
    }

    /** {@return the versions of each kind, oldest first: for messages and tests} */
    Map<String, List<String>> versions() {
        Map<String, List<String>> versions = new java.util.LinkedHashMap<>();
        blocks.forEach(b -> versions.computeIfAbsent(b.kind(), kind -> new ArrayList<>()).add(b.version()));
        return versions;
    }

    @Override
    public String toString() {
        return NAME + " " + versions();
    }
}
