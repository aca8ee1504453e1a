package io.jrunc.cli;

import java.util.ArrayList;
import java.util.List;

/** Go's text/tabwriter as runc configures it for `list`: minimum width 12, padding 3, spaces. */
final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    void row(String... cells) {
        rows.add(cells);
    }

    @Override
    public String toString() {
        int columns = rows.getFirst().length;
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns - 1; i++) {
                width[i] = Math.max(width[i], Math.max(12, r[i].length() + 3));
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                out.append(r[i]);
                if (i < columns - 1) {
                    out.append(" ".repeat(width[i] - r[i].length()));
                }
            }
            out.append('\n');
        }
        return out.toString();
    }
}
