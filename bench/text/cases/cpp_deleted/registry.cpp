// A plugin registry: plugins own their state through unique_ptr; a report copies one by mistake.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace plug {

struct State {
    int loads = 0;
    std::vector<std::string> log;
    void note(const std::string &line) { log.push_back(line); }
};

struct Plugin {
    std::string name;
    int priority = 0;
    std::unique_ptr<State> state;

    explicit Plugin(std::string n, int p) : name(std::move(n)), priority(p), state(new State) {}
    Plugin(Plugin &&) = default;
    Plugin &operator=(Plugin &&) = default;

    void load()
    {
        ++state->loads;
        state->note("load " + name);
    }
};

class Registry {
public:
    void add(const std::string &name, int priority)
    {
        plugins_.emplace_back(name, priority);
        index_[name] = plugins_.size() - 1;
    }

    void sort_by_priority()
    {
        std::sort(plugins_.begin(), plugins_.end(),
                  [](const Plugin &a, const Plugin &b) { return a.priority > b.priority; });
        index_.clear();
        for (std::size_t i = 0; i < plugins_.size(); ++i)
            index_[plugins_[i].name] = i;
    }

    void load_all()
    {
        for (auto &p : plugins_)
            p.load();
    }

    // The bug: returns a copy of a move-only plugin.
    Plugin find(const std::string &name) const
    {
        auto it = index_.find(name);
        return plugins_.at(it->second);
    }

    std::size_t size() const { return plugins_.size(); }

private:
    std::vector<Plugin> plugins_;
    std::map<std::string, std::size_t> index_;
};

int total_loads(const Registry &r, const std::vector<std::string> &names)
{
    int total = 0;
    for (const auto &n : names)
        total += r.find(n).state->loads;
    return total;
}

} // namespace plug

int main()
{
    plug::Registry registry;
    registry.add("audio", 2);
    registry.add("video", 5);
    registry.add("input", 1);
    registry.sort_by_priority();
    registry.load_all();
    return plug::total_loads(registry, {"audio", "video"}) == 2 ? 0 : 1;
}
