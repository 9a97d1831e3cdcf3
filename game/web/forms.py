"""Posted and typed input, read with Django forms: anything unreadable is simply invalid."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from game import names


# Room codes are letters only (models.ROOM_CODE_ALPHABET); allow a little slack.
class JoinForm(forms.Form):
    # The browser limits what is typed; this only keeps absurd posts out.
    name = forms.CharField(max_length=1000, strip=True)

    def clean_name(self) -> str:
        name = names.clean_name(self.cleaned_data["name"])
        if not name:
            raise forms.ValidationError(_("Please type your name."))
        return name


class RejoinForm(forms.Form):
    rejoin_code = forms.CharField(max_length=100)

    def clean_rejoin_code(self) -> str:
        code = names.read_code(self.cleaned_data["rejoin_code"])
        if not code:
            raise forms.ValidationError(_("That rejoin code does not match a seat in this game."))
        return code


class FindForm(forms.Form):
    code = forms.CharField(max_length=100)

    def clean_code(self) -> str:
        return names.read_code(self.cleaned_data["code"])


class SeatForm(forms.Form):
    position = forms.IntegerField(min_value=0, max_value=3)


class BotForm(forms.Form):
    kind = forms.CharField(max_length=32, required=False)


class NewGameForm(forms.Form):
    no_gold_small = forms.BooleanField(required=False)
