"""ranges.plain and ranges.plain_data_record (a model file's records told valid without pydantic) accept only what
mtcli.schema accepts, with the same values; the shipped models' records take that path."""

import copy
import math

import pytest

from mtcli import registry, schema
from mtcli.checkpoint import WEIGHTS, load_tensors
from mtcli.config import ModelConfig, TrainConfig
from mtcli.errors import UserError
from mtcli.ranges import plain, plain_data_record

SHIPPED = [load_tensors(path / WEIGHTS)[1] for path in registry.models().values() if path.parent == registry.SHIPPED_DIR]
MODEL_VALUES = [None, True, False, 0, 1, 3, 16.0, -16, "16", 10**12, math.nan, math.inf, 0.5, 1.0, [], {}]
DATA_EDITS = [("seed", -1), ("seed", 2**32), ("seed", 1.0), ("seed", True), ("split", "bogus"), ("split", 1),
              ("split_sizes", {"train": -1}), ("split_sizes", {"train": 1.5}), ("split_sizes", []),
              ("vocab", {"en": 8}), ("vocab", {"en": 100, "es": 100, "x": 1}), ("vocab", {"en": 100.0, "es": 100}),
              ("vocab", None), ("direction", "en-fr"), ("direction", None), ("data_sha256", "F" * 64),
              ("data_sha256", "f" * 63), ("data_sha256", None), ("other", [1, "x"]), ("seed", 7)]


def _schema_check(cls, data):
    try:
        return schema.check(cls, data, "here")
    except UserError:
        return "refused"


def test_the_shipped_records_are_plain():
    assert SHIPPED
    for meta in SHIPPED:
        assert plain(ModelConfig, meta["model"]) == schema.check(ModelConfig, meta["model"], "here")
        assert plain_data_record(meta["data"])


@pytest.mark.parametrize("field", sorted(vars(ModelConfig())) + ["bogus"])
def test_a_plain_model_config_is_one_schema_accepts_the_same(field):
    for value in MODEL_VALUES:
        data = {**SHIPPED[0]["model"], field: value}
        told = plain(ModelConfig, data)
        assert told is None or told == _schema_check(ModelConfig, data), (field, value)
    del data[field]
    assert plain(ModelConfig, data) in (None, _schema_check(ModelConfig, data))


def test_a_plain_train_config_is_one_schema_accepts_the_same():
    for field in vars(TrainConfig()):
        for value in MODEL_VALUES + ["noam", "bogus", "train+selection"]:
            data = {field: value}
            assert plain(TrainConfig, data) in (None, _schema_check(TrainConfig, data)), (field, value)


def test_a_plain_data_record_is_one_schema_accepts():
    for field, value in DATA_EDITS:
        data = copy.deepcopy(SHIPPED[0]["data"])
        data[field] = value
        if plain_data_record(data):
            schema.check_data_meta(data, "here")  # (raises if it refuses)
    assert plain_data_record(None) and not plain_data_record([])
    assert not plain_data_record({**SHIPPED[0]["data"], "seed": -1})  # (what the schema refuses is left to it)
