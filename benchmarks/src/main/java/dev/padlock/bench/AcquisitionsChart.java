package dev.padlock.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A PNG of grouped bars: acquisitions/s per scenario, one bar per library, on a log scale, each
 * bar labelled with its value. Drawn with Java2D, headless.
 */
final class AcquisitionsChart {

    private static final int WIDTH = 1100;
    private static final int HEIGHT = 560;
    private static final int LEFT = 80;
    private static final int RIGHT = 30;
    private static final int TOP = 60;
    private static final int BOTTOM = 70;
    private static final Color[] COLORS = {new Color(0x2E7D32), new Color(0xC62828)};

    private AcquisitionsChart() {
    }

    /**
     * Writes the chart.
     *
     * @param values scenario id to acquisitions/s, one per library in {@code libraries}' order
     */
    static void write(Path file, String title, List<String> libraries, Map<String, String> titles,
            Map<String, double[]> values) throws IOException {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            draw(g, title, libraries, titles, values);
        } finally {
            g.dispose();
        }
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("No PNG writer for " + file);
        }
    }

    private static void draw(Graphics2D g, String title, List<String> libraries, Map<String, String> titles,
            Map<String, double[]> values) {
        double max = values.values().stream().flatMapToDouble(java.util.Arrays::stream).max().orElse(10);
        double min = values.values().stream().flatMapToDouble(java.util.Arrays::stream).filter(v -> v > 0)
                .min().orElse(1);
        int lowExponent = (int) Math.floor(Math.log10(Math.max(1, min)));
        int highExponent = Math.max(lowExponent + 1, (int) Math.ceil(Math.log10(Math.max(10, max))));
        int plotHeight = HEIGHT - TOP - BOTTOM;
        int plotWidth = WIDTH - LEFT - RIGHT;

        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(title, LEFT, 28);

        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int exponent = lowExponent; exponent <= highExponent; exponent++) {
            int y = y(Math.pow(10, exponent), lowExponent, highExponent, plotHeight);
            g.setColor(new Color(0xDDDDDD));
            g.setStroke(new BasicStroke(1));
            g.drawLine(LEFT, y, WIDTH - RIGHT, y);
            g.setColor(Color.DARK_GRAY);
            String label = String.format(Locale.ROOT, "%,.0f", Math.pow(10, exponent));
            g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y + 4);
        }
        for (int exponent = lowExponent; exponent < highExponent; exponent++) {
            for (int factor : new int[] {2, 5}) {
                double value = factor * Math.pow(10, exponent);
                int y = y(value, lowExponent, highExponent, plotHeight);
                g.setColor(new Color(0xF0F0F0));
                g.drawLine(LEFT, y, WIDTH - RIGHT, y);
                g.setColor(Color.GRAY);
                String label = String.format(Locale.ROOT, "%,.0f", value);
                g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y + 4);
            }
        }
        g.setColor(Color.BLACK);
        g.drawLine(LEFT, TOP, LEFT, TOP + plotHeight);
        g.drawLine(LEFT, TOP + plotHeight, WIDTH - RIGHT, TOP + plotHeight);

        int groups = Math.max(1, values.size());
        int groupWidth = plotWidth / groups;
        int barWidth = Math.min(48, (groupWidth - 20) / libraries.size());
        int group = 0;
        for (Map.Entry<String, double[]> entry : values.entrySet()) {
            int groupLeft = LEFT + group * groupWidth + (groupWidth - barWidth * libraries.size()) / 2;
            for (int i = 0; i < libraries.size(); i++) {
                double value = entry.getValue()[i];
                int top = y(Math.max(value, Math.pow(10, lowExponent)), lowExponent, highExponent, plotHeight);
                int x = groupLeft + i * barWidth;
                g.setColor(COLORS[i % COLORS.length]);
                g.fillRect(x + 2, top, barWidth - 4, TOP + plotHeight - top);
                g.setColor(Color.BLACK);
                g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
                centered(g, String.format(Locale.ROOT, "%,.0f", value), x + barWidth / 2, top - 4);
            }
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
            int center = LEFT + group * groupWidth + groupWidth / 2;
            centered(g, entry.getKey(), center, TOP + plotHeight + 16);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
            wrapped(g, titles.getOrDefault(entry.getKey(), ""), center, TOP + plotHeight + 30, groupWidth - 6);
            group++;
        }

        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        int legendX = WIDTH - RIGHT - 220;
        for (int i = 0; i < libraries.size(); i++) {
            g.setColor(COLORS[i % COLORS.length]);
            g.fillRect(legendX + i * 110, 16, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(libraries.get(i), legendX + i * 110 + 20, 28);
        }
        g.setColor(Color.DARK_GRAY);
        g.drawString("acquisitions/s (log scale)", LEFT, TOP - 10);
    }

    private static int y(double value, int lowExponent, int highExponent, int plotHeight) {
        double fraction = (Math.log10(value) - lowExponent) / (highExponent - lowExponent);
        return TOP + plotHeight - (int) Math.round(fraction * plotHeight);
    }

    private static void centered(Graphics2D g, String text, int centerX, int baseline) {
        g.drawString(text, centerX - g.getFontMetrics().stringWidth(text) / 2, baseline);
    }

    /** Draws {@code text} in centred lines no wider than {@code width}, at most two. */
    private static void wrapped(Graphics2D g, String text, int centerX, int baseline, int width) {
        FontMetrics metrics = g.getFontMetrics();
        StringBuilder line = new StringBuilder();
        int lines = 0;
        for (String word : text.split(" ")) {
            String candidate = line.length() == 0 ? word : line + " " + word;
            if (metrics.stringWidth(candidate) > width && line.length() > 0) {
                centered(g, line.toString(), centerX, baseline + lines * 12);
                if (++lines == 2) {
                    return;
                }
                line = new StringBuilder(word);
            } else {
                line = new StringBuilder(candidate);
            }
        }
        centered(g, line.toString(), centerX, baseline + lines * 12);
    }
}
