use super::*;

fn test(function: &str) -> PytestTest {
    PytestTest {
        function: function.into(),
        ..PytestTest::default()
    }
}

#[test]
fn fixtures_are_called_and_the_test_is_called_at_the_end() {
    let source = "import pytest\n\n\n@pytest.fixture\ndef db():\n    return {'gold': 2}\n\n\n\
                  @pytest.fixture()\ndef order(db):\n    o = [db]\n    yield o\n    o.clear()\n\n\n\
                  def test_total(order, unused=3):\n    assert order[0]['gold'] == 3\n";
    let script = pytest_script(source, &test("test_total")).unwrap();
    assert_eq!(
        script,
        "import pytest\n\n\ndef db():\n    return {'gold': 2}\n\n\n\
         def order(db):\n    o = [db]\n    yield o\n    o.clear()\n\n\n\
         def test_total(order, unused=3):\n    assert order[0]['gold'] == 3\n\
         db = db()\norder = next(order(db=db))\ntest_total(order=order)\n"
    );
    crate::check_valid(&script).unwrap();
}

#[test]
fn the_chosen_parametrize_case_is_bound_and_marks_go() {
    let source = "import pytest\n\n\n@pytest.mark.slow\n@pytest.mark.parametrize(\n    'tier, rate',\n    \
                  [('gold', 0.2), pytest.param('silver', 0.1, id='s')],\n)\n\
                  @pytest.mark.parametrize('n', [1])\ndef test_rate(tier, rate, n):\n    raise ValueError(tier)\n";
    let mut chosen = test("test_rate");
    chosen.indices.insert("tier".into(), 1);
    let script = pytest_script(source, &chosen).unwrap();
    assert_eq!(
        script,
        "import pytest\n\n\ndef test_rate(tier, rate, n):\n    raise ValueError(tier)\n\
         tier, rate = 'silver', 0.1\nn = 1\ntest_rate(tier=tier, rate=rate, n=n)\n"
    );
    chosen.indices.clear();
    let unknown = pytest_script(source, &chosen).unwrap_err();
    assert!(unknown.contains("is not known"), "{unknown}");
}

#[test]
fn a_method_autouse_and_named_fixtures() {
    let source = "from pytest import fixture\n\n\n@fixture(autouse=True)\ndef setup():\n    print('up')\n\n\n\
                  @fixture(name='cfg')\ndef make_cfg():\n    return 1\n\n\n\
                  class TestX:\n    def test_y(self, cfg):\n        assert cfg == 2\n";
    let chosen = PytestTest {
        class: Some("TestX".into()),
        ..test("test_y")
    };
    let script = pytest_script(source, &chosen).unwrap();
    assert!(
        script.ends_with("setup = setup()\ncfg = make_cfg()\nTestX().test_y(cfg=cfg)\n"),
        "{script}"
    );
    assert!(!script.contains("@fixture"), "{script}");
}

#[test]
fn what_only_pytest_can_supply_is_refused_with_the_reason() {
    for (source, why) in [
        ("def test_a(tmp_path):\n    pass\n", "fixture `tmp_path`"),
        ("def test_a(request):\n    pass\n", "`request`"),
        ("async def test_a():\n    pass\n", "coroutine"),
        (
            "import pytest\n@pytest.fixture(params=[1, 2])\ndef p(request):\n    return request.param\ndef test_a(p):\n    pass\n",
            "parametrized",
        ),
        (
            "import pytest\n@pytest.mark.parametrize('x', [1], indirect=True)\ndef test_a(x):\n    pass\n",
            "indirect",
        ),
        ("def test_b():\n    pass\n", "no test function test_a"),
    ] {
        let why_not = pytest_script(source, &test("test_a")).unwrap_err();
        assert!(why_not.contains(why), "{source}: {why_not}");
    }
}
