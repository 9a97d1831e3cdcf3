"""Posted and typed input, read with Django forms: anything unreadable is simply invalid.

Django decodes a form with errors="replace", so bytes that were not UTF-8 arrive
as U+FFFD; every field here refuses them, and control characters, before its
own conversion (names.readable): a name of invalid bytes is refused with a
message, as an empty one is, and changes nothing. Views read posted forms
through posted(), which makes raw bytes of a url-encoded body read the same way.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import RegexValidator
from django.http import HttpRequest, QueryDict
from django.utils.translation import gettext_lazy as _

from game.storage import names


def posted(request: HttpRequest) -> QueryDict:
    """request.POST, but a url-encoded body of raw bytes that are not UTF-8 reads as U+FFFD.

    Browsers percent-encode such a body (%FF reads as U+FFFD). Given raw bytes,
    Django reads the whole body as Latin-1 instead ("\\xff" as "ÿ"), which no
    field could tell from text; read this way, the fields refuse it.
    """
    if request.content_type == "application/x-www-form-urlencoded" and request.encoding in {
        None,
        "utf-8",
    }:
        try:
            request.body.decode("utf-8")
        except UnicodeDecodeError:
            return QueryDict(request.body.decode("utf-8", errors="replace"))
    return request.POST


UNREADABLE_NAME = _("Your name has characters that cannot be read. Please type it again.")


class ReadableMixin(forms.Field):
    """Refuse a posted value that is not text someone typed, before anything else.

    Checked on the value as posted, before stripping or conversion: CharField's
    strip() would silently drop a control character at either end, and int()
    reads around some of them.
    """

    default_error_messages = {"unreadable": _("That request could not be read.")}

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and not names.readable(value):
            raise forms.ValidationError(self.error_messages["unreadable"], code="unreadable")
        return super().to_python(value)


class TextField(ReadableMixin, forms.CharField):
    pass


class NumberField(ReadableMixin, forms.IntegerField):
    pass


class _PostedCheckbox(forms.CheckboxInput):
    """A checkbox that hands the field the value as posted (Django's makes it a bool)."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        return data.get(name) if name in data else False


class CheckboxField(ReadableMixin, forms.BooleanField):
    widget = _PostedCheckbox


# Room codes are letters only (models.ROOM_CODE_ALPHABET); allow a little slack.
class JoinForm(forms.Form):
    # The browser limits what is typed; this only keeps absurd posts out.
    name = TextField(max_length=1000, strip=True, error_messages={"unreadable": UNREADABLE_NAME})

    def clean_name(self) -> str:
        name = names.clean_name(self.cleaned_data["name"])
        if not name:
            raise forms.ValidationError(_("Please type your name."))
        return name

    def error(self) -> str:
        """What the join page says about a name it refused."""
        if self.has_error("name", "unreadable"):
            return str(UNREADABLE_NAME)
        return str(_("Please type your name."))  # missing, blank or absurdly long


class TvPlayerForm(forms.Form):
    """The lobby's name for a player without a phone (game.writer.lobby.add_tv_player
    applies the join page's name rules)."""

    name = TextField(max_length=1000, strip=True)


class RejoinForm(forms.Form):
    rejoin_code = TextField(max_length=100)

    def clean_rejoin_code(self) -> str:
        code = names.read_code(self.cleaned_data["rejoin_code"])
        if not code:
            raise forms.ValidationError(_("That rejoin code does not match a seat in this game."))
        return code


class FindForm(forms.Form):
    code = TextField(max_length=100)

    def clean_code(self) -> str:
        return names.read_code(self.cleaned_data["code"])


class SeatForm(forms.Form):
    position = NumberField(min_value=0, max_value=3)


class BotForm(forms.Form):
    kind = TextField(max_length=32, required=False)


class NewGameForm(forms.Form):
    no_gold_small = CheckboxField(required=False)


class StandInForm(forms.Form):
    """The lobby's stand-in choice: blank for never, else whole seconds (plain digits)."""

    seconds = TextField(
        max_length=6, required=False, strip=False, validators=[RegexValidator(r"\A[0-9]+\Z")]
    )


class ThinkForm(forms.Form):
    """The lobby's think-time choice: seconds as plain digits, "0.5" or "2"."""

    seconds = TextField(
        max_length=7, strip=False, validators=[RegexValidator(r"\A[0-9]{1,3}(\.[0-9]{1,3})?\Z")]
    )


class ForgetForm(forms.Form):
    """The name of a player to forget, as the confirmation page posts it.

    Only looked up, never stored: U+FFFD is not refused here, so a name that got
    into the history before names were checked can still be forgotten; control
    characters are (no name in the history holds one: names.clean_name drops them).
    """

    name = forms.CharField(max_length=names.NAME_MAX_CODE_POINTS * 4, strip=False)

    def clean_name(self) -> str:
        name = str(self.cleaned_data["name"])
        if not names.readable(name.replace(names.REPLACEMENT, "")):
            raise forms.ValidationError(_("That request could not be read."))
        return name
