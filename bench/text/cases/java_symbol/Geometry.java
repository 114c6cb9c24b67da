import java.util.ArrayList;
import java.util.List;

public class Geometry {
    interface Shape {
        double area();
        String name();
    }

    static final class Circle implements Shape {
        private final double r;
        Circle(double r) { this.r = r; }
        public double area() { return Math.PI * r * r; }
        public String name() { return "circle"; }
    }

    static final class Rect implements Shape {
        private final double w;
        private final double h;
        Rect(double w, double h) { this.w = w; this.h = h; }
        public double area() { return w * h; }
        public String name() { return "rect"; }
        double diagonal() { return Math.sqrt(w * w + h * h); }
    }

    static double total(List<Shape> shapes) {
        double sum = 0;
        for (Shape s : shapes) {
            sum += s.area();
        }
        return sum;
    }

    static Shape largest(List<Shape> shapes) {
        Shape best = null;
        for (Shape s : shapes) {
            if (best == null || s.area() > best.area()) {
                best = s;
            }
        }
        return best;
    }

    static String describe(Shape s) {
        if (s instanceof Rect) {
            Rect r = (Rect) s;
            return "rect with diagonal " + r.diagonal();
        }
        return s.name() + " of perimeter " + s.perimeter();
    }

    public static void main(String[] args) {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(new Circle(1.5));
        shapes.add(new Rect(2, 3));
        shapes.add(new Circle(0.5));
        System.out.printf("%.2f%n", total(shapes));
        System.out.println(largest(shapes).name());
        for (Shape s : shapes) {
            System.out.println(describe(s));
        }
    }
}
