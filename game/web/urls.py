"""HTTP URLs of the game."""

from django.urls import path

from game.web import archive_views, help_views, household_views, story_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.create, name="create"),
    path("find/", views.find, name="find"),
    path("host/<str:code>/", views.host, name="host"),
    path("host/<str:code>/bot/", views.add_bot, name="add_bot"),
    path("host/<str:code>/remove/", views.remove_seat, name="remove_seat"),
    path("host/<str:code>/start/", views.start, name="start"),
    path("host/<str:code>/rematch/", views.rematch, name="rematch"),
    path("host/<str:code>/stand-in/", views.stand_in, name="stand_in"),
    path("host/<str:code>/tv-player/", views.add_tv_player, name="add_tv_player"),
    path("host/<str:code>/play-on-tv/", views.play_on_tv, name="play_on_tv"),
    path("join/<str:code>/", views.join, name="join"),
    path("play/<str:code>/", views.play, name="play"),
    path("host/<str:code>/stand-in-after/", views.stand_in_after, name="stand_in_after"),
    path("host/<str:code>/hard-bot-seconds/", views.hard_bot_seconds, name="hard_bot_seconds"),
    path("games/", archive_views.games, name="games"),
    path("games/<str:code>/record.txt", archive_views.export, name="export"),
    path("replay/<str:code>/", archive_views.replay, name="replay"),
    path("story/<str:code>/", story_views.story_tv, name="story_tv"),
    path("story/<str:code>/mine/", story_views.story_mine, name="story_mine"),
    path("play/<str:code>/log/", help_views.game_log, name="game_log"),
    path("how-to-play/", help_views.how_to_play, name="how_to_play"),
    path("players/", household_views.players, name="players"),
    path("players/forget/", household_views.forget, name="forget_player"),
]
