// A small serialization framework: values are written to a byte sink through overloads.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace wire {

struct Sink {
    std::vector<std::uint8_t> bytes;
    void put(std::uint8_t b) { bytes.push_back(b); }
};

inline void serialize(Sink &out, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.put(static_cast<std::uint8_t>(v >> (8 * i)));
}

inline void serialize(Sink &out, const std::string &s)
{
    serialize(out, static_cast<std::uint32_t>(s.size()));
    for (char c : s)
        out.put(static_cast<std::uint8_t>(c));
}

template <typename T>
void serialize(Sink &out, const std::vector<T> &items)
{
    serialize(out, static_cast<std::uint32_t>(items.size()));
    for (const auto &item : items)
        serialize(out, item);
}

template <typename K, typename V>
void serialize(Sink &out, const std::map<K, V> &table)
{
    serialize(out, static_cast<std::uint32_t>(table.size()));
    for (const auto &entry : table) {
        serialize(out, entry.first);
        serialize(out, entry.second);
    }
}

} // namespace wire

namespace app {

struct Point {
    std::uint32_t x;
    std::uint32_t y;
};

struct Route {
    std::string name;
    std::vector<Point> stops;
    std::map<std::string, std::uint32_t> tags;
};

inline void serialize(wire::Sink &out, const Route &r)
{
    wire::serialize(out, r.name);
    wire::serialize(out, r.stops);
    wire::serialize(out, r.tags);
}

std::size_t encoded_size(const std::vector<Route> &routes)
{
    wire::Sink sink;
    for (const auto &r : routes)
        serialize(sink, r);
    return sink.bytes.size();
}

std::vector<Route> sample_routes()
{
    std::vector<Route> routes;
    Route a;
    a.name = "harbor";
    a.stops = {{1, 2}, {3, 4}, {5, 8}};
    a.tags["speed"] = 40;
    a.tags["lanes"] = 2;
    routes.push_back(a);
    Route b;
    b.name = "ridge";
    b.stops = {{10, 20}};
    routes.push_back(b);
    return routes;
}

} // namespace app

int main()
{
    return static_cast<int>(app::encoded_size(app::sample_routes()) % 7);
}
