package dev.padlock.sim.redis;

/** Redis's glob match ({@code stringmatchlen}): {@code *}, {@code ?}, {@code [a-z]}, {@code [^x]}, {@code \x}. */
final class Glob {

    private Glob() {
    }

    /** Whether {@code text} matches {@code pattern}, case-sensitively. */
    static boolean matches(String pattern, String text) {
        return match(pattern, 0, text, 0);
    }

    private static boolean match(String p, int pi, String s, int si) {
        while (pi < p.length()) {
            char c = p.charAt(pi);
            switch (c) {
                case '*' -> {
                    while (pi + 1 < p.length() && p.charAt(pi + 1) == '*') {
                        pi++;
                    }
                    if (pi + 1 == p.length()) {
                        return true;
                    }
                    for (int k = si; k <= s.length(); k++) {
                        if (match(p, pi + 1, s, k)) {
                            return true;
                        }
                    }
                    return false;
                }
                case '?' -> {
                    if (si == s.length()) {
                        return false;
                    }
                    si++;
                }
                case '[' -> {
                    if (si == s.length()) {
                        return false;
                    }
                    int[] end = new int[1];
                    if (!matchClass(p, pi + 1, s.charAt(si), end)) {
                        return false;
                    }
                    pi = end[0];
                    si++;
                }
                default -> {
                    if (c == '\\' && pi + 1 < p.length()) {
                        pi++;
                        c = p.charAt(pi);
                    }
                    if (si == s.length() || s.charAt(si) != c) {
                        return false;
                    }
                    si++;
                }
            }
            pi++;
        }
        return si == s.length();
    }

    /** Matches {@code ch} against the class opening at {@code pi}; end[0] gets the index of its ']'. */
    private static boolean matchClass(String p, int pi, char ch, int[] end) {
        boolean not = pi < p.length() && p.charAt(pi) == '^';
        if (not) {
            pi++;
        }
        boolean matched = false;
        while (true) {
            if (pi >= p.length()) {
                pi = p.length() - 1; // an unterminated class ends the pattern, as in Redis
                break;
            }
            char c = p.charAt(pi);
            if (c == ']') {
                break;
            }
            if (c == '\\' && pi + 1 < p.length()) {
                pi++;
                if (p.charAt(pi) == ch) {
                    matched = true;
                }
            } else if (pi + 2 < p.length() && p.charAt(pi + 1) == '-') {
                char start = c;
                char stop = p.charAt(pi + 2);
                if (start > stop) {
                    char swap = start;
                    start = stop;
                    stop = swap;
                }
                pi += 2;
                if (ch >= start && ch <= stop) {
                    matched = true;
                }
            } else if (c == ch) {
                matched = true;
            }
            pi++;
        }
        end[0] = pi;
        return not != matched;
    }
}
