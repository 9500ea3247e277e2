package dev.padlock.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A text table whose columns are as wide as their widest cell, header included, so no value
 * pushes the columns after it out of line, however long. Columns are two spaces apart; a
 * right-aligned column (numbers) aligns its header to the right too; the last column is not
 * padded.
 */
final class Table {
    private final List<String> headers = new ArrayList<>();
    private final List<Boolean> right = new ArrayList<>();
    private final List<String[]> rows = new ArrayList<>();
    private boolean showHeaders = true;

    /** Adds a left-aligned column. */
    Table column(String header) {
        headers.add(header);
        right.add(false);
        return this;
    }

    /** Adds a right-aligned column. */
    Table rightColumn(String header) {
        headers.add(header);
        right.add(true);
        return this;
    }

    /** No header line: rows only. */
    Table withoutHeaders() {
        showHeaders = false;
        return this;
    }

    /** Adds a row, one cell per column ({@code null} prints as empty). */
    Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException(cells.length + " cells for " + headers.size() + " columns");
        }
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            row[i] = cells[i] == null ? "" : String.valueOf(cells[i]);
        }
        rows.add(row);
        return this;
    }

    /** The table, one line per row, each ended by a line separator. */
    String render() {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = showHeaders ? headers.get(i).length() : 0;
            for (String[] row : rows) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        if (showHeaders) {
            line(headers.toArray(String[]::new), widths, out);
        }
        for (String[] row : rows) {
            line(row, widths, out);
        }
        return out.toString();
    }

    private void line(String[] cells, int[] widths, StringBuilder out) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                line.append("  ");
            }
            String pad = " ".repeat(widths[i] - cells[i].length());
            if (right.get(i)) {
                line.append(pad).append(cells[i]);
            } else {
                line.append(cells[i]);
                if (i < cells.length - 1) {
                    line.append(pad);
                }
            }
        }
        out.append(line.toString().stripTrailing()).append(System.lineSeparator());
    }
}
